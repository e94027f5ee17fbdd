//! CETP v2 operations (`async_operations`, `cancellation`): a call of a `#[tool(long_running)]`
//! still running after the inline window goes on in the background, answered `accepted` with an
//! operation id the agent polls (`get_operation`) and may cancel (`cancel_operation`).
//!
//! - **Admitted as a call.** The call is admitted by the core on the Binder thread exactly as a
//!   synchronous one (its slot among the caller's calls in flight, authorization, the sizes, the
//!   arguments, the access log); only the tool itself runs elsewhere, and its slot is held until
//!   it ends.
//! - **Threads the SDK owns.** A small pool ([`CetpV2::operation_threads`], started on the first
//!   operation) runs the tools; the Binder thread waits at most the inline window for the
//!   answer, measured on the provider's clock.
//! - **Bound to the caller.** An operation belongs to the UID that started it. For any other UID
//!   it does not exist: `get_operation` and `cancel_operation` answer exactly what they answer for
//!   an id never issued (`RESULT_EXPIRED`). The ids are random (128 bits).
//! - **Bounded.** Each UID holds at most [`CetpV2::operations_per_caller`] operations (a
//!   finished one whose outcome it already read gives way to a new one), all callers together
//!   [`CetpV2::operations_in_all`]. The table is split by UID into shards, each with its own
//!   lock: callers never wait for each other's operations.
//! - **Expiring.** A finished operation is kept [`CetpV2::operation_retention`] (by default the
//!   spec's idempotency window, a day), then forgotten.
//! - **Outliving its caller.** An operation does not belong to the agent's process or session:
//!   when the agent's process dies, the tool runs on to its end (or its deadline), and the agent,
//!   started again under the same UID, negotiates a new session and reads the outcome with the
//!   same `request_id` and `operation_id`. When the *provider's* process dies its operations
//!   die with it (they are kept in memory: every tool is read-only, so calling again is safe);
//!   the agent's next call gets `NEGOTIATION_REQUIRED`, and after negotiating, `RESULT_EXPIRED`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use super::CetpV2;
use crate::caller::Caller;
use crate::clock::Clock;
use crate::provider::{Admitted, Provider};
use crate::signals::CallSignals;
use crate::wire::Response;

/// How often a Binder thread waiting out the inline window looks at the provider's clock again,
/// at most (the window is measured on that clock, which a test may move by hand).
const CLOCK_LOOK: Duration = Duration::from_millis(25);
/// The table's shards, by UID.
const SHARDS: usize = 16;

/// How a CETP v2 host runs operations: set through [`CetpV2`]'s operation settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OperationSettings {
    inline_window: Duration,
    workers: usize,
    max_per_caller: usize,
    max_total: usize,
    retention: Duration,
    poll_after: Duration,
}

impl Default for OperationSettings {
    fn default() -> Self {
        OperationSettings {
            inline_window: Duration::from_secs(1),
            workers: 2,
            max_per_caller: 8,
            max_total: 64,
            retention: Duration::from_secs(super::words::MIN_IDEMPOTENCY_WINDOW_SECONDS),
            poll_after: Duration::from_secs(1),
        }
    }
}

impl OperationSettings {
    pub(crate) fn poll_after_ms(&self) -> u64 {
        millis(self.poll_after)
    }
}

/// How a `#[tool(long_running)]` becomes an operation. The defaults: a 1 s inline window, 2
/// threads, 8 operations per caller and 64 in all, kept a day after they finish, polled every
/// second.
///
/// ```
/// use std::time::Duration;
/// use cetp_provider::host::CetpV2;
/// use cetp_provider::{Provider, tool, tools};
///
/// /// Searches every note.
/// #[tool(long_running)]
/// fn search_everything(
///     /// Words to look for.
///     query: String,
/// ) -> Vec<String> { vec![query] }
///
/// let provider = Provider::builder("Notes")
///     .tools(tools![search_everything])
///     .tool_deadline("search_everything", Duration::from_secs(60))
///     .host(CetpV2::new().inline_window(Duration::from_millis(500)).operation_threads(1))
///     .build()
///     .unwrap();
/// # let _ = provider;
/// ```
impl CetpV2 {
    /// How long the agent's call waits for a long-running tool before it is answered
    /// `accepted` (default 1 s, measured on the provider's clock; never past half the time
    /// left before the agent's deadline). Zero answers `accepted` unless the tool has already
    /// finished.
    pub fn inline_window(mut self, window: Duration) -> Self {
        self.operations.inline_window = window;
        self
    }

    /// The threads that run operations (default 2, at least 1), started with the first
    /// operation. More operations wait `queued`.
    pub fn operation_threads(mut self, threads: usize) -> Self {
        self.operations.workers = threads.max(1);
        self
    }

    /// The operations one caller (UID) may hold, running or finished and unread (default 8;
    /// a finished one whose outcome it read gives way to a new one).
    pub fn operations_per_caller(mut self, max: usize) -> Self {
        self.operations.max_per_caller = max.max(1);
        self
    }

    /// The operations all callers together may hold (default 64).
    pub fn operations_in_all(mut self, max: usize) -> Self {
        self.operations.max_total = max.max(1);
        self
    }

    /// How long a finished operation's outcome is kept (default, and at least, the spec's
    /// idempotency window of a day: a shorter one is raised to it).
    pub fn operation_retention(mut self, retention: Duration) -> Self {
        self.operations.retention = retention.max(Duration::from_secs(
            super::words::MIN_IDEMPOTENCY_WINDOW_SECONDS,
        ));
        self
    }

    /// The `poll_after_ms` the agent is given (default 1 s, kept within 100 ms and 10 s).
    pub fn poll_after(mut self, every: Duration) -> Self {
        self.operations.poll_after =
            every.clamp(Duration::from_millis(100), Duration::from_secs(10));
        self
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Where an operation is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum State {
    Queued,
    Running,
    /// The tool's answer, as the core made it.
    Done(Response),
    Cancelled,
}

impl State {
    fn is_terminal(&self) -> bool {
        matches!(self, State::Done(_) | State::Cancelled)
    }
}

struct Status {
    state: State,
    finished_at_ms: Option<u64>,
    /// The caller read the terminal state at least once.
    delivered: bool,
}

/// One operation: its owner, its signals, and its state behind its own lock.
pub(crate) struct Operation {
    id: String,
    uid: u32,
    request_id: String,
    tool: &'static str,
    signals: Arc<CallSignals>,
    status: Mutex<Status>,
    changed: Condvar,
}

impl Operation {
    /// The operation id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The `request_id` of the `execute_tool` that started it.
    pub(crate) fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The tool it runs.
    pub(crate) fn tool(&self) -> &'static str {
        self.tool
    }

    /// Its state and the tool's last progress; reading a terminal state marks it read.
    pub(crate) fn look(&self) -> (State, Option<crate::signals::Progress>) {
        let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        if status.state.is_terminal() {
            status.delivered = true;
        }
        (status.state.clone(), self.signals.progress())
    }

    /// Asks it to stop: `Ok(true)` when the request was noted (it had not finished),
    /// `Ok(false)` when it was already cancelled, `Err(())` when it had finished otherwise.
    /// Decided under the same lock the worker records the outcome under, so a cancellation
    /// acknowledged always ends `cancelled`.
    pub(crate) fn cancel(&self) -> Result<bool, ()> {
        let status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        match status.state {
            State::Cancelled => Ok(false),
            State::Done(_) => Err(()),
            State::Queued | State::Running => {
                self.signals.cancel();
                Ok(true)
            }
        }
    }

    fn set(&self, state: State, now_ms: u64) {
        let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        if state.is_terminal() {
            status.finished_at_ms = Some(now_ms);
        }
        status.state = state;
        drop(status);
        self.changed.notify_all();
    }

    /// Records the tool's answer, or `cancelled` when a cancellation was acknowledged first.
    fn finish(&self, response: Response, now_ms: u64) {
        let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        status.state = if self.signals.is_cancelled() {
            State::Cancelled
        } else {
            State::Done(response)
        };
        status.finished_at_ms = Some(now_ms);
        drop(status);
        self.changed.notify_all();
    }

    fn expired(&self, now_ms: u64, retention_ms: u64) -> bool {
        let status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        status
            .finished_at_ms
            .is_some_and(|at| now_ms.saturating_sub(at) >= retention_ms)
    }

    fn delivered(&self) -> Option<u64> {
        let status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        status
            .delivered
            .then_some(status.finished_at_ms.unwrap_or(0))
    }

    /// Waits until it finished, at most until `until_ms` on `clock`.
    fn wait(&self, clock: &dyn Clock, until_ms: u64) -> Option<Response> {
        let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let State::Done(response) = &status.state {
                return Some(response.clone());
            }
            let now = clock.now_ms();
            if now >= until_ms || status.state == State::Cancelled {
                return None;
            }
            let left = Duration::from_millis(until_ms - now).min(CLOCK_LOOK);
            status = self
                .changed
                .wait_timeout(status, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits until it reached a terminal state (tests only: never on a Binder thread).
    #[cfg(test)]
    pub(crate) fn settle(&self) {
        let mut status = self.status.lock().unwrap_or_else(PoisonError::into_inner);
        while !status.state.is_terminal() {
            status = self
                .changed
                .wait(status)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[derive(Default)]
struct Shard {
    by_id: HashMap<String, Arc<Operation>>,
}

impl Shard {
    fn held_by(&self, uid: u32) -> impl Iterator<Item = &Arc<Operation>> {
        self.by_id.values().filter(move |op| op.uid == uid)
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The threads that run operations, started with the first one.
struct Pool {
    workers: usize,
    sender: OnceLock<Option<Mutex<Sender<Job>>>>,
}

impl Pool {
    fn submit(&self, job: Job) -> Result<(), Job> {
        let sender = self.sender.get_or_init(|| {
            let (sender, receiver) = mpsc::channel::<Job>();
            let receiver = Arc::new(Mutex::new(receiver));
            let mut started = 0;
            for n in 0..self.workers {
                let receiver = Arc::clone(&receiver);
                let spawned = std::thread::Builder::new()
                    .name(format!("cetp-operation-{n}"))
                    .spawn(move || work(&receiver));
                match spawned {
                    Ok(_) => started += 1,
                    Err(e) => log::error!("CETP v2: no thread for operations: {e}"),
                }
            }
            (started > 0).then(|| Mutex::new(sender))
        });
        match sender {
            // The sender's lock is held only to hand the job over, never while a tool runs.
            Some(sender) => sender
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .send(job)
                .map_err(|e| e.0),
            None => Err(job),
        }
    }
}

/// One worker: runs jobs until the pool is gone.
fn work(receiver: &Mutex<Receiver<Job>>) {
    loop {
        let job = receiver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        match job {
            // A job runs the tool inside the core's panic boundary: it does not unwind here.
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// Why an operation could not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// This caller holds as many as it may.
    CallerFull(usize),
    /// All callers together hold as many as the provider keeps.
    Full,
    /// No thread or no random bytes.
    Unavailable,
}

/// What became of a call started as an operation.
pub(crate) enum Started {
    /// It finished within the inline window: answered as a synchronous call.
    Inline(Response),
    /// It goes on: answered `accepted`.
    Accepted(Arc<Operation>),
}

/// The operations of one CETP v2 host.
pub(crate) struct Operations {
    provider: Arc<Provider>,
    settings: OperationSettings,
    shards: Vec<Mutex<Shard>>,
    total: AtomicUsize,
    pool: Pool,
}

impl Operations {
    pub(crate) fn new(provider: Arc<Provider>, settings: OperationSettings) -> Self {
        Operations {
            provider,
            settings,
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            total: AtomicUsize::new(0),
            pool: Pool {
                workers: settings.workers,
                sender: OnceLock::new(),
            },
        }
    }

    pub(crate) fn settings(&self) -> &OperationSettings {
        &self.settings
    }

    fn clock(&self) -> &Arc<dyn Clock> {
        self.provider.authorizer().clock()
    }

    fn shard(&self, uid: u32) -> &Mutex<Shard> {
        &self.shards[uid as usize % SHARDS]
    }

    /// The operation `id` of `uid`, if it has one by that id that has not expired; nobody
    /// else's.
    pub(crate) fn find(&self, uid: u32, id: &str) -> Option<Arc<Operation>> {
        let now = self.clock().now_ms();
        let retention = millis(self.settings.retention);
        let mut shard = self
            .shard(uid)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let op = shard.by_id.get(id).filter(|op| op.uid == uid).cloned()?;
        if op.expired(now, retention) {
            shard.by_id.remove(id);
            self.total.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(op)
    }

    /// The operation `uid` started with `request_id`, if it holds one: a retried
    /// `execute_tool` gets the same operation rather than a second run.
    pub(crate) fn started_by(&self, uid: u32, request_id: &str) -> Option<Arc<Operation>> {
        let shard = self
            .shard(uid)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        shard
            .held_by(uid)
            .find(|op| op.request_id == request_id)
            .cloned()
    }

    /// Runs the admitted call of `tool` on the pool and waits for it at most the inline window
    /// (and never past half the time left before `deadline_ms`).
    pub(crate) fn start(
        &self,
        admitted: Admitted,
        caller: &Caller,
        uid: u32,
        request_id: &str,
        deadline_ms: u64,
    ) -> Result<Started, Refusal> {
        let now = self.clock().now_ms();
        let id = new_id().ok_or(Refusal::Unavailable)?;
        let tool = self
            .provider
            .tool_at(admitted.tool_index())
            .map_or("", |t| t.name());
        let op = Arc::new(Operation {
            id: id.clone(),
            uid,
            request_id: request_id.to_owned(),
            tool,
            signals: Arc::new(CallSignals::new()),
            status: Mutex::new(Status {
                state: State::Queued,
                finished_at_ms: None,
                delivered: false,
            }),
            changed: Condvar::new(),
        });
        self.reserve(&op, now)?;
        let job_op = Arc::clone(&op);
        let provider = Arc::clone(&self.provider);
        let caller = caller.clone();
        let job: Job = Box::new(move || {
            let clock = Arc::clone(provider.authorizer().clock());
            if job_op.signals.is_cancelled() {
                // Cancelled before a thread took it: the tool never runs.
                drop(admitted);
                job_op.set(State::Cancelled, clock.now_ms());
                return;
            }
            job_op.set(State::Running, clock.now_ms());
            let response = provider.finish_reply(admitted, &caller, Some(&job_op.signals));
            job_op.finish(response, clock.now_ms());
        });
        if self.pool.submit(job).is_err() {
            self.forget(&op);
            return Err(Refusal::Unavailable);
        }
        let window = millis(self.settings.inline_window).min(deadline_ms.saturating_sub(now) / 2);
        match op.wait(self.clock().as_ref(), now.saturating_add(window)) {
            Some(response) => {
                // Answered in its reply: the agent never learns the id.
                self.forget(&op);
                Ok(Started::Inline(response))
            }
            None => Ok(Started::Accepted(op)),
        }
    }

    /// Makes room for `op` and enters it: its caller's bound (a finished operation it already
    /// read gives way, the oldest first; expired ones go), then the total.
    fn reserve(&self, op: &Arc<Operation>, now: u64) -> Result<(), Refusal> {
        let retention = millis(self.settings.retention);
        let mut shard = self
            .shard(op.uid)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let expired: Vec<String> = shard
            .by_id
            .values()
            .filter(|held| held.expired(now, retention))
            .map(|held| held.id.clone())
            .collect();
        for id in expired {
            shard.by_id.remove(&id);
            self.total.fetch_sub(1, Ordering::SeqCst);
        }
        if shard.held_by(op.uid).count() >= self.settings.max_per_caller {
            let oldest_read = shard
                .held_by(op.uid)
                .filter_map(|held| held.delivered().map(|at| (at, held.id.clone())))
                .min();
            match oldest_read {
                Some((_, id)) => {
                    shard.by_id.remove(&id);
                    self.total.fetch_sub(1, Ordering::SeqCst);
                }
                None => return Err(Refusal::CallerFull(self.settings.max_per_caller)),
            }
        }
        let max = self.settings.max_total;
        self.total
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| Refusal::Full)?;
        shard.by_id.insert(op.id.clone(), Arc::clone(op));
        Ok(())
    }

    fn forget(&self, op: &Operation) {
        let mut shard = self
            .shard(op.uid)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if shard.by_id.remove(&op.id).is_some() {
            self.total.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// How many operations are held, all callers together.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }
}

/// `op_` and 32 random hexadecimal digits, or `None` without random bytes.
fn new_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let mut id = String::with_capacity(35);
    id.push_str("op_");
    for b in bytes {
        id.push_str(&format!("{b:02x}"));
    }
    Some(id)
}
