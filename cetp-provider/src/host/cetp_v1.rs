//! The CETP v1 host: a `ContentProvider.call(method, arg, extras)` as a [`Request`], answered
//! by a [`CetpV1Host`] through the provider's core as a [`Response`] (the reply Bundle's
//! key/value pairs).
//!
//! | method | answered by |
//! |---|---|
//! | `list_tools` | [`Provider::list_tools_json`], once [`Need::Discovery`] is granted |
//! | `get_provider_info` | [`Provider::provider_info_json`], the same way |
//! | `execute_tool` | [`Provider::execute`] of the tool `tool_name` names |
//! | anything else | `TOOL_NOT_FOUND` naming the three methods |

use std::ops::Deref;

use crate::caller::Caller;
use crate::error::ToolError;
use crate::log_text::printable;
use crate::provider::{Need, Provider, ToolCall};
use crate::wire::{self, Response};

/// The longest method name considered, in characters (CETP v1's are far shorter).
const MAX_METHOD_CHARS: usize = 64;

/// One `ContentResolver.call` as CETP reads it: the method and the three string extras CETP
/// defines, each `None` when absent (a null Bundle and an empty one are the same request).
///
/// The fields borrow the host's strings, so a host builds a request without copying. Extras
/// CETP does not define never reach the provider: hosts read only these keys, which keeps
/// unknown extras ignored for forward compatibility.
///
/// ```
/// use cetp_provider::host::Request;
/// use cetp_provider::wire;
///
/// let list = Request::list_tools();
/// assert_eq!(list.method, wire::METHOD_LIST_TOOLS);
///
/// let run = Request::execute("get_note", r#"{"id":7}"#).with_request_id("3f2b");
/// assert_eq!(run.tool_name, Some("get_note"));
/// assert_eq!(run.request_id, Some("3f2b"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request<'a> {
    /// The `method` of the call: [`wire::METHOD_LIST_TOOLS`], [`wire::METHOD_EXECUTE_TOOL`],
    /// [`wire::METHOD_GET_PROVIDER_INFO`] or anything else (answered `TOOL_NOT_FOUND`).
    pub method: &'a str,
    /// The extra [`wire::EXTRA_TOOL_NAME`].
    pub tool_name: Option<&'a str>,
    /// The extra [`wire::EXTRA_ARGS`]: the JSON text of the arguments.
    pub args: Option<&'a str>,
    /// The extra [`wire::EXTRA_REQUEST_ID`].
    pub request_id: Option<&'a str>,
}

impl<'a> Request<'a> {
    /// A call of `method` without extras.
    pub fn new(method: &'a str) -> Self {
        Request {
            method,
            tool_name: None,
            args: None,
            request_id: None,
        }
    }

    /// `list_tools`.
    pub fn list_tools() -> Self {
        Request::new(wire::METHOD_LIST_TOOLS)
    }

    /// `get_provider_info`.
    pub fn provider_info() -> Self {
        Request::new(wire::METHOD_GET_PROVIDER_INFO)
    }

    /// `execute_tool` of `tool` with `args` (JSON text).
    pub fn execute(tool: &'a str, args: &'a str) -> Self {
        Request::new(wire::METHOD_EXECUTE_TOOL)
            .with_tool_name(tool)
            .with_args(args)
    }

    /// Sets the tool name extra.
    pub fn with_tool_name(mut self, tool: &'a str) -> Self {
        self.tool_name = Some(tool);
        self
    }

    /// Sets the args extra.
    pub fn with_args(mut self, args: &'a str) -> Self {
        self.args = Some(args);
        self
    }

    /// Sets the agent's request id.
    pub fn with_request_id(mut self, request_id: &'a str) -> Self {
        self.request_id = Some(request_id);
        self
    }
}

/// The CETP v1 view of a [`Provider`]. Like every host, it is built from the provider it
/// answers from (`&Provider`, or an `Arc<Provider>` to keep it), and keeps nothing else.
///
/// ```
/// use cetp_provider::host::{CetpV1Host, Request, Response};
/// use cetp_provider::{Caller, ErrorCode, Provider};
///
/// let provider = Provider::builder("Empty").build().unwrap();
/// let host = CetpV1Host::new(&provider);
/// let answer = host.call(&Request::new("no_such_method"), &Caller::unknown());
/// assert_eq!(answer.error_code(), Some(ErrorCode::ToolNotFound));
/// let list = host.call(&Request::list_tools(), &Caller::unknown());
/// assert_eq!(list.data(), Some(r#"{"tools":[]}"#));
/// # let _: Response = list;
/// ```
#[derive(Debug, Clone)]
pub struct CetpV1Host<P = std::sync::Arc<Provider>> {
    provider: P,
}

impl<P: Deref<Target = Provider>> CetpV1Host<P> {
    /// The CETP v1 view of `provider`.
    pub fn new(provider: P) -> Self {
        CetpV1Host { provider }
    }

    /// The provider this host answers from.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// Answers one CETP call: `request` as it arrived, from `caller` (who the platform says is
    /// calling). The Android template's `ContentProvider` and `testing::Agent` (feature `test-util`) call
    /// this.
    pub fn call(&self, request: &Request<'_>, caller: &Caller) -> Response {
        let provider = &*self.provider;
        let discovery = |data: &str| match provider.authorize(caller, Need::Discovery) {
            Ok(_) => Response::Success(data.to_owned()),
            Err(refused) => Response::Error(refused),
        };
        let (what, response) = match request.method {
            wire::METHOD_EXECUTE_TOOL => {
                return provider.execute(tool_call(provider, request), caller);
            }
            wire::METHOD_LIST_TOOLS => (request.method, discovery(provider.list_tools_json())),
            wire::METHOD_GET_PROVIDER_INFO => {
                (request.method, discovery(provider.provider_info_json()))
            }
            // The caller's text is answered, not logged.
            other => ("an unknown method", Response::Error(unknown_method(other))),
        };
        provider.reply(what, caller, response)
    }

    /// The reply to `method` if it is the same for every caller, so a host may keep it and
    /// answer without identifying the caller: `method` is `list_tools` or `get_provider_info`
    /// and discovery is not gated ([`Auth::gate_discovery`](crate::auth::Auth::gate_discovery)).
    /// `None` means "ask on every call".
    ///
    /// ```
    /// use cetp_provider::host::{CetpV1Host, Request};
    /// use cetp_provider::wire;
    /// use cetp_provider::{Caller, Provider};
    /// let provider = Provider::builder("Notes").build().unwrap();
    /// let host = CetpV1Host::new(&provider);
    /// let kept = host.constant_reply(wire::METHOD_LIST_TOOLS).unwrap();
    /// assert_eq!(kept, host.call(&Request::list_tools(), &Caller::app(10_001, "com.agent")));
    /// assert!(host.constant_reply(wire::METHOD_EXECUTE_TOOL).is_none());
    /// ```
    pub fn constant_reply(&self, method: &str) -> Option<Response> {
        let data = match method {
            wire::METHOD_LIST_TOOLS => self.provider.list_tools_json(),
            wire::METHOD_GET_PROVIDER_INFO => self.provider.provider_info_json(),
            _ => return None,
        };
        self.provider
            .discovery_is_open()
            .then(|| Response::Success(data.to_owned()))
    }
}

/// The tool `execute_tool` names, or what CETP answers when it names none.
fn tool_call<'p>(provider: &'p Provider, request: &Request<'p>) -> ToolCall<'p> {
    let tool = match request.tool_name.filter(|name| !name.trim().is_empty()) {
        Some(name) => provider.tool_named(name),
        None => Err(ToolError::invalid_args(format!(
            "`execute_tool` needs the extra `{}` naming the tool to run",
            wire::EXTRA_TOOL_NAME
        ))),
    };
    ToolCall::new(tool)
        .maybe_args(request.args)
        .request_id(request.request_id)
}

fn unknown_method(method: &str) -> ToolError {
    let speaks = format!(
        "this provider speaks CETP v1: `{}`, `{}`, `{}`",
        wire::METHOD_LIST_TOOLS,
        wire::METHOD_EXECUTE_TOOL,
        wire::METHOD_GET_PROVIDER_INFO
    );
    let chars = method.chars().count();
    if chars > MAX_METHOD_CHARS {
        ToolError::tool_not_found(format!(
            "unknown method (a name of {chars} characters); {speaks}"
        ))
    } else {
        ToolError::tool_not_found(format!("unknown method `{}`; {speaks}", printable(method)))
    }
}
