//! The Apex host's lifecycle table under many hosts, through the public `ApexHost`: a host with
//! open bindings is never dropped to make room, the `on_activate` hook runs once per connection
//! of a host however its calls interleave with others', and callers without a package take no
//! entry and run no hook.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cetp_provider::auth::Auth;
use cetp_provider::host::apex::{Apex, ApexHost, MAX_TRACKED_AGENTS};
use cetp_provider::{Caller, Provider, tool, tools};

/// Adds two integers.
#[tool]
fn add(
    /// The first, e.g. 2.
    a: i64,
    /// The second, e.g. 40.
    b: i64,
) -> i64 {
    a + b
}

struct Counted {
    plugin: ApexHost,
    activated: Arc<AtomicU64>,
    deactivated: Arc<AtomicU64>,
}

/// An Apex host over an open provider (the default discovery) counting its hook runs.
fn counted() -> Counted {
    let activated = Arc::new(AtomicU64::new(0));
    let deactivated = Arc::new(AtomicU64::new(0));
    let (a, d) = (Arc::clone(&activated), Arc::clone(&deactivated));
    let provider = Provider::builder("Calculator")
        .tools(tools![add])
        .auth(Auth::open())
        .host(
            Apex::new()
                .on_activate(move |_| {
                    a.fetch_add(1, Ordering::Relaxed);
                })
                .on_deactivate(move |_| {
                    d.fetch_add(1, Ordering::Relaxed);
                }),
        )
        .build()
        .unwrap();
    Counted {
        plugin: ApexHost::new(Arc::new(provider)),
        activated,
        deactivated,
    }
}

fn other_host(n: u32) -> Caller {
    Caller::app(20_000 + n, format!("com.other.host{n}"))
}

#[test]
fn an_active_host_keeps_its_entry_when_more_hosts_activate_than_fit() {
    let counted = counted();
    let plugin = &counted.plugin;
    let real = Caller::app(10_300, "com.apex.agent");
    plugin.activate(&real);
    for n in 0..MAX_TRACKED_AGENTS as u32 {
        plugin.activate(&other_host(n));
    }
    let hosts = plugin.connections();
    assert_eq!(hosts.len(), MAX_TRACKED_AGENTS);
    assert!(
        hosts.iter().any(|h| h.uid == Some(10_300) && h.active == 1),
        "the real host is still counted: {hosts:?}"
    );
    plugin.deactivate(&real);
    assert_eq!(
        counted.deactivated.load(Ordering::Relaxed),
        1,
        "its last onDeactivate ran the hook"
    );
    // Now inactive, its entry is the one a newcomer may take.
    plugin.activate(&other_host(1_000));
    let hosts = plugin.connections();
    assert!(hosts.iter().all(|h| h.uid != Some(10_300)), "{hosts:?}");
    assert!(hosts.iter().any(|h| h.uid == Some(21_000)), "{hosts:?}");
}

#[test]
fn hosts_taking_turns_run_the_hook_once_each_not_once_per_call() {
    let counted = counted();
    let plugin = &counted.plugin;
    let uids = MAX_TRACKED_AGENTS as u32 + 1;
    for _ in 0..100 {
        for n in 0..uids {
            plugin.activate(&other_host(n));
        }
    }
    // One run per host the table holds; the one beyond it is not counted, so it runs none
    // (every activation of it would otherwise be a first one).
    assert_eq!(
        counted.activated.load(Ordering::Relaxed),
        MAX_TRACKED_AGENTS as u64
    );
    let hosts = plugin.connections();
    assert_eq!(hosts.len(), MAX_TRACKED_AGENTS);
    assert!(hosts.iter().all(|h| h.activations == 100), "{hosts:?}");
    // Deactivating everyone runs the other hook once per counted host.
    for _ in 0..100 {
        for n in 0..uids {
            plugin.deactivate(&other_host(n));
        }
    }
    assert_eq!(
        counted.deactivated.load(Ordering::Relaxed),
        MAX_TRACKED_AGENTS as u64
    );
}

#[test]
fn callers_without_a_package_take_no_entry_and_run_no_hook() {
    let counted = counted();
    let plugin = &counted.plugin;
    let isolated = |n: u32| Caller::from_parts(Some(99_000 + n), Vec::new());
    for n in 0..(2 * MAX_TRACKED_AGENTS as u32) {
        plugin.activate(&isolated(n));
        plugin.activate(&Caller::unknown());
    }
    assert!(plugin.connections().is_empty());
    assert_eq!(counted.activated.load(Ordering::Relaxed), 0);
    // A real host still finds room and runs its hook.
    plugin.activate(&Caller::app(10_300, "com.apex.agent"));
    assert_eq!(counted.activated.load(Ordering::Relaxed), 1);
    assert_eq!(plugin.connections().len(), 1);
}
