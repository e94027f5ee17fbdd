//! What a tool knows about the call it serves: [`CallContext`], the caller's [`AccessLevel`] and
//! the call's [`Deadline`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::caller::Caller;
use crate::clock::Clock;
use crate::error::ToolError;
use crate::signals::CallSignals;
use crate::type_map::TypeMap;

/// How much a caller may see. Tools read it from [`CallContext::access`] and return less to a
/// `Limited` caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum AccessLevel {
    /// Everything the tool returns.
    #[default]
    Full,
    /// A reduced view chosen by the tool (titles without bodies, totals without items, ...).
    Limited,
}

impl AccessLevel {
    /// Whether this is [`AccessLevel::Limited`].
    pub fn is_limited(self) -> bool {
        self == AccessLevel::Limited
    }
}

/// When a call must be answered. Every `execute_tool` gets one (the provider's
/// [`Limits::call_deadline`](crate::Limits::call_deadline), or the tool's own from
/// [`ProviderBuilder::tool_deadline`](crate::ProviderBuilder::tool_deadline)); a call still
/// running past it answers `INTERNAL_ERROR` saying so, whatever the tool returns.
///
/// A call the agent cancels (CETP v2's `cancel_operation`, MCP's `notifications/cancelled`)
/// is past its deadline at once, so a tool that honours its deadline stops on cancellation too.
///
/// A tool that can take long checks it: [`is_past`](Self::is_past) between steps,
/// [`check`](Self::check) with `?`, or a clone handed to a database's progress callback (it is
/// cheap to clone and `'static`), so the work stops and the Binder thread is free again.
///
/// ```
/// use cetp_provider::{CallContext, Caller, ToolError};
///
/// fn sum_slowly(items: &[u64], ctx: &CallContext) -> Result<u64, ToolError> {
///     let mut sum = 0;
///     for item in items {
///         ctx.deadline().check()?; // INTERNAL_ERROR once the time is up
///         sum += item;
///     }
///     Ok(sum)
/// }
///
/// let caller = Caller::unknown();
/// let ctx = CallContext::new(&caller); // a hand-made context never runs out of time
/// assert!(!ctx.deadline().is_past());
/// assert_eq!(sum_slowly(&[1, 2, 3], &ctx).unwrap(), 6);
/// ```
#[derive(Clone, Default)]
pub struct Deadline {
    at: Option<(u64, Arc<dyn Clock>)>,
    /// The call's signals: a cancelled call is past its deadline too.
    cancel: Option<Arc<CallSignals>>,
}

impl fmt::Debug for Deadline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some((at_ms, _)) => f.debug_tuple("Deadline").field(at_ms).finish(),
            None => f.write_str("Deadline(none)"),
        }
    }
}

impl Deadline {
    /// No deadline: never past.
    pub fn none() -> Self {
        Deadline {
            at: None,
            cancel: None,
        }
    }

    /// `time_left` from now on `clock`: for testing a tool with a deadline of your own (the
    /// provider gives every call its deadline; see [`CallContext::with_deadline`]). With the
    /// `test-util` feature.
    ///
    /// ```
    /// use std::time::Duration;
    /// use cetp_provider::Deadline;
    /// use cetp_provider::auth::SystemClock;
    ///
    /// let deadline = Deadline::new(SystemClock, Duration::from_secs(60));
    /// assert!(!deadline.is_past());
    /// assert!(deadline.time_left() <= Duration::from_secs(60));
    /// assert!(Deadline::new(SystemClock, Duration::ZERO).is_past());
    /// ```
    #[cfg(any(test, feature = "test-util"))]
    #[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
    pub fn new(clock: impl Clock, time_left: Duration) -> Self {
        let now_ms = clock.now_ms();
        Deadline::after(&(Arc::new(clock) as Arc<dyn Clock>), now_ms, time_left)
    }

    /// `after` from `start_ms` on `clock`.
    pub(crate) fn after(clock: &Arc<dyn Clock>, start_ms: u64, after: Duration) -> Self {
        let after_ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX);
        Deadline {
            at: Some((start_ms.saturating_add(after_ms), Arc::clone(clock))),
            cancel: None,
        }
    }

    /// The same deadline, also past once `signals` are cancelled.
    pub(crate) fn or_cancelled(mut self, signals: &Arc<CallSignals>) -> Self {
        self.cancel = Some(Arc::clone(signals));
        self
    }

    fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|s| s.is_cancelled())
    }

    /// Whether the time is up, or the agent cancelled the call (a CETP v2 `cancel_operation`,
    /// an MCP cancellation): either way the tool should stop now.
    pub fn is_past(&self) -> bool {
        self.cancelled()
            || self
                .at
                .as_ref()
                .is_some_and(|(at_ms, clock)| clock.now_ms() >= *at_ms)
    }

    /// How long is left (`Duration::MAX` without a deadline, zero once past or cancelled).
    pub fn time_left(&self) -> Duration {
        if self.cancelled() {
            return Duration::ZERO;
        }
        match &self.at {
            Some((at_ms, clock)) => Duration::from_millis(at_ms.saturating_sub(clock.now_ms())),
            None => Duration::MAX,
        }
    }

    /// `Err` once the time is up (`INTERNAL_ERROR`, "stopped at its deadline") or the call was
    /// cancelled ([`ToolError::cancelled`]), for `?`.
    ///
    /// # Errors
    /// The deadline has passed, or the agent cancelled the call.
    pub fn check(&self) -> Result<(), ToolError> {
        if self.cancelled() {
            return Err(ToolError::cancelled());
        }
        if self.is_past() {
            Err(ToolError::internal(
                "the tool stopped at its deadline before it had an answer; ask for less (a narrower query or a smaller limit)",
            ))
        } else {
            Ok(())
        }
    }
}

/// What a tool knows about the call it is serving. Declare a `&CallContext` parameter on a
/// `#[tool]` function to receive it; it is injected, never advertised in the schema.
///
/// It borrows everything from the call: building one costs no allocation.
///
/// ```
/// use cetp_provider::{AccessLevel, CallContext, Caller};
/// let caller = Caller::app(10_001, "com.example.agent");
/// let ctx = CallContext::new(&caller)
///     .with_request_id("3f2b")
///     .with_access(AccessLevel::Limited);
/// assert_eq!(ctx.request_id(), Some("3f2b"));
/// assert!(ctx.access().is_limited());
/// assert_eq!(ctx.caller().uid(), Some(10_001));
/// ```
#[derive(Debug, Clone)]
pub struct CallContext<'a> {
    caller: &'a Caller,
    request_id: Option<&'a str>,
    access: AccessLevel,
    tool: &'a str,
    states: Option<&'a TypeMap>,
    deadline: Deadline,
    signals: Option<&'a CallSignals>,
}

impl<'a> CallContext<'a> {
    /// A context for `caller` with full access, no request id, no provider state and no
    /// deadline (for calling a tool's function by hand in a test).
    pub fn new(caller: &'a Caller) -> Self {
        CallContext {
            caller,
            request_id: None,
            access: AccessLevel::Full,
            tool: "",
            states: None,
            deadline: Deadline::none(),
            signals: None,
        }
    }

    /// Sets the agent's request id.
    #[must_use]
    pub fn with_request_id(mut self, request_id: &'a str) -> Self {
        self.request_id = Some(request_id);
        self
    }

    /// Sets the access level granted to the caller.
    #[must_use]
    pub fn with_access(mut self, access: AccessLevel) -> Self {
        self.access = access;
        self
    }

    /// Sets the deadline (a hand-made context has none). With the `test-util` feature.
    ///
    /// ```
    /// use std::time::Duration;
    /// use cetp_provider::{CallContext, Caller, Deadline};
    /// use cetp_provider::auth::SystemClock;
    ///
    /// let caller = Caller::unknown();
    /// let ctx = CallContext::new(&caller).with_deadline(Deadline::new(SystemClock, Duration::ZERO));
    /// assert!(ctx.deadline().check().is_err());
    /// ```
    #[cfg(any(test, feature = "test-util"))]
    #[cfg_attr(docsrs, doc(cfg(feature = "test-util")))]
    #[must_use]
    pub fn with_deadline(mut self, deadline: Deadline) -> Self {
        self.deadline = deadline;
        self
    }

    /// Sets where progress goes and cancellation comes from (a hand-made context has neither):
    /// for testing a tool that reports progress or stops when cancelled.
    ///
    /// ```
    /// use cetp_provider::{CallContext, Caller};
    /// use cetp_provider::host::CallSignals;
    ///
    /// let caller = Caller::unknown();
    /// let signals = CallSignals::new();
    /// let ctx = CallContext::new(&caller).with_signals(&signals);
    /// ctx.progress(1, 4, "Reading notes");
    /// assert_eq!(signals.progress().unwrap().total, Some(4));
    /// signals.cancel();
    /// assert!(ctx.check_cancelled().is_err());
    /// ```
    #[must_use]
    #[doc(hidden)]
    pub fn with_signals(mut self, signals: &'a CallSignals) -> Self {
        self.signals = Some(signals);
        self
    }

    /// Reports how far the tool has come: `current` of `total` (`None` when unknown) and a
    /// short message for people (at most 200 characters; never put the user's data in it).
    /// A CETP v2 agent reads it from `get_operation`, an MCP client as progress
    /// notifications; elsewhere it goes nowhere, at the cost of one check. Report per step of
    /// real work (every few hundred rows), not per item.
    ///
    /// ```
    /// use cetp_provider::{CallContext, Caller};
    /// let caller = Caller::unknown();
    /// CallContext::new(&caller).progress(10, None, "Scanning"); // nobody listens: a no-op
    /// ```
    pub fn progress(&self, current: u64, total: impl Into<Option<u64>>, message: &str) {
        if let Some(signals) = self.signals {
            let message = (!message.is_empty()).then_some(message);
            signals.report(current, total.into(), message);
        }
    }

    /// Whether the agent asked to stop this call (CETP v2 `cancel_operation`, an MCP
    /// `notifications/cancelled`). A long tool checks it between steps, like its
    /// [`deadline`](Self::deadline), or hands a check to a database's progress callback; the
    /// call then ends as cancelled whatever the tool returns. Never true on CETP v1 or Apex.
    pub fn is_cancelled(&self) -> bool {
        self.signals.is_some_and(CallSignals::is_cancelled)
    }

    /// `Err` ([`ToolError::cancelled`]) once the call was cancelled, for `?`.
    ///
    /// # Errors
    /// The agent asked to stop the call.
    pub fn check_cancelled(&self) -> Result<(), ToolError> {
        if self.is_cancelled() {
            Err(ToolError::cancelled())
        } else {
            Ok(())
        }
    }

    /// The signals of this call, when a host gave it some (for handing a clone of the check
    /// to a callback that outlives the borrow, such as a database progress handler).
    #[doc(hidden)]
    pub fn signals(&self) -> Option<&'a CallSignals> {
        self.signals
    }

    /// The context the provider gives the tool `tool`.
    pub(crate) fn for_tool(
        mut self,
        tool: &'a str,
        states: &'a TypeMap,
        deadline: Deadline,
    ) -> Self {
        self.tool = tool;
        self.states = Some(states);
        self.deadline = deadline;
        self
    }

    /// The calling app.
    pub fn caller(&self) -> &'a Caller {
        self.caller
    }

    /// The agent's request id, for log correlation.
    pub fn request_id(&self) -> Option<&'a str> {
        self.request_id
    }

    /// The access level granted to the caller.
    pub fn access(&self) -> AccessLevel {
        self.access
    }

    /// When the call must be answered; see [`Deadline`].
    pub fn deadline(&self) -> &Deadline {
        &self.deadline
    }

    /// The name of the tool being run (empty outside a tool call).
    pub fn tool_name(&self) -> &'a str {
        self.tool
    }

    /// The provider state of type `T` given to
    /// [`ProviderBuilder::state`](crate::ProviderBuilder::state), if any.
    ///
    /// `#[tool]` functions take a `&T` parameter instead, which the provider checks when it is
    /// built; this is for hand-written [`Tool`](crate::Tool)s, which list the types they read in
    /// [`Tool::state_types`](crate::Tool::state_types) to get the same check.
    ///
    /// ```
    /// use cetp_provider::{CallContext, Caller};
    /// assert!(CallContext::new(&Caller::unknown()).state::<String>().is_none());
    /// ```
    pub fn state<T: std::any::Any>(&self) -> Option<&'a T> {
        self.states?.get::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    #[test]
    fn a_deadline_follows_the_providers_clock() {
        let clock = ManualClock::new(1_000);
        let shared: Arc<dyn Clock> = Arc::new(clock.clone());
        let deadline = Deadline::after(&shared, clock.now_ms(), Duration::from_millis(500));
        assert!(!deadline.is_past());
        assert_eq!(deadline.time_left(), Duration::from_millis(500));
        assert!(deadline.check().is_ok());
        clock.advance(Duration::from_millis(499));
        assert!(!deadline.clone().is_past());
        clock.advance(Duration::from_millis(1));
        assert!(deadline.is_past());
        assert_eq!(deadline.time_left(), Duration::ZERO);
        let err = deadline.check().unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InternalError);
        assert!(err.message().contains("deadline"), "{err}");
        assert!(!Deadline::none().is_past());
        assert_eq!(Deadline::none().time_left(), Duration::MAX);
    }

    #[test]
    fn a_cancelled_call_is_past_its_deadline_and_says_why() {
        let clock = ManualClock::new(1_000);
        let shared: Arc<dyn Clock> = Arc::new(clock.clone());
        let signals = Arc::new(CallSignals::new());
        let deadline = Deadline::after(&shared, clock.now_ms(), Duration::from_secs(60))
            .or_cancelled(&signals);
        let caller = Caller::unknown();
        let ctx = CallContext::new(&caller).with_signals(&signals);
        assert!(!deadline.is_past() && !ctx.is_cancelled());
        assert!(deadline.check().is_ok() && ctx.check_cancelled().is_ok());
        ctx.progress(2, None, "");
        assert_eq!(signals.progress().unwrap().message, None);
        signals.cancel();
        assert!(deadline.is_past(), "a tool that honours its deadline stops");
        assert_eq!(deadline.time_left(), Duration::ZERO);
        assert_eq!(deadline.check().unwrap_err(), ToolError::cancelled());
        assert!(ctx.is_cancelled());
        assert_eq!(ctx.check_cancelled().unwrap_err(), ToolError::cancelled());
        // A hand-made context is never cancelled and reports nowhere.
        let plain = CallContext::new(&caller);
        plain.progress(1, 2, "x");
        assert!(!plain.is_cancelled());
    }
}
