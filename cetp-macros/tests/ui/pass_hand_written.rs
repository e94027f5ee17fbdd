//! `tools!` also takes hand-written tools that are field-less structs.
use cetp_provider::{CallContext, Tool, ToolError, tool, tools};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

struct Echo;

impl Tool for Echo {
    type Args = EchoArgs;
    type Output = String;
    const NAME: &'static str = "echo";
    const DESCRIPTION: &'static str = "Returns its input.";

    fn call(&self, args: EchoArgs, _ctx: &CallContext) -> Result<String, ToolError> {
        Ok(args.text)
    }
}

/// Says hi.
#[tool]
fn hi() -> &'static str {
    "hi"
}

mod nested {
    pub(crate) mod deeper {
        /// Says bye.
        #[cetp_provider::tool]
        pub(crate) fn bye() -> &'static str {
            "bye"
        }
    }
}

fn main() {
    let tools = tools![Echo, hi, crate::hi, self::nested::deeper::bye, nested::deeper::bye,];
    assert_eq!(tools.len(), 5);
}
