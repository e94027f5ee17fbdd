//! A tool borrows provider state through `&T` parameters, next to its arguments and the context.
#![deny(warnings)]

use std::sync::Mutex;

use cetp_provider::testing::Agent;
use cetp_provider::{CallContext, Provider, auth::Auth, tool, tools};

/// Settings the app reads once.
struct Settings {
    greeting: String,
}

/// How often the tool ran.
#[derive(Default)]
struct Counter(Mutex<u32>);

/// Greets someone and counts the greetings.
#[tool]
fn greet(
    /// Who to greet.
    name: String,
    settings: &Settings,
    ctx: &CallContext,
    counter: &Counter,
) -> String {
    let mut count = counter.0.lock().unwrap();
    *count += 1;
    format!("{} {name} #{count} ({})", settings.greeting, ctx.tool_name())
}

fn main() {
    let provider = Provider::builder("Greeter")
        .tools(tools![greet])
        .state(Settings {
            greeting: "Hello".into(),
        })
        .state(Counter::default())
        .auth(Auth::open())
        .build()
        .unwrap();
    let agent = Agent::new(&provider);
    agent.execute("greet", r#"{"name":"Ada"}"#);
    let answer = agent.execute("greet", r#"{"name":"Ada"}"#);
    assert_eq!(answer.data_json().unwrap(), "Hello Ada #2 (greet)");
    // The function stays callable with its state passed by hand.
    let settings = Settings {
        greeting: "Hi".into(),
    };
    let caller = cetp_provider::Caller::unknown();
    let ctx = CallContext::new(&caller);
    assert_eq!(greet("Bo".into(), &settings, &ctx, &Counter::default()), "Hi Bo #1 ()");
}
