//! [`Request`]: one CETP call as it arrives, borrowed from the host's strings.

use crate::wire;

/// One `ContentResolver.call` as CETP reads it: the method and the three string extras CETP
/// defines, each `None` when absent (a null Bundle and an empty one are the same request).
///
/// The fields borrow the host's strings, so a host builds a request without copying. Extras
/// CETP does not define never reach the provider: hosts read only these keys, which keeps
/// unknown extras ignored for forward compatibility.
///
/// ```
/// use cetp_provider::{Request, wire};
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

    /// Sets the consumer's request id.
    pub fn with_request_id(mut self, request_id: &'a str) -> Self {
        self.request_id = Some(request_id);
        self
    }
}
