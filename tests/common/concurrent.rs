//! Runs the independent cases of one test at the same time. The slow integration and tmux
//! tests spend their time waiting (on a terminal, a timeout, a killed process), not
//! computing, so their cases overlap well even on two cores (decision 0107).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `case` on every item of `cases`, each on its own thread, and waits for all of them.
/// Every case runs to its end even when another fails; then the first failure (in the
/// order of `cases`) is raised again with its own message, so a failing test reads as it
/// did when the cases ran one after another. Each case must use its own resources (tmux
/// socket, directory, token), as the callers' cases already do.
pub fn each_at_once<T: Sync>(cases: &[T], case: impl Fn(&T) + Sync) {
    each_on_threads(cases.len(), cases, case);
}

/// [`each_at_once`] with at most `threads` cases running at a time, taken in order.
pub fn each_on_threads<T: Sync>(threads: usize, cases: &[T], case: impl Fn(&T) + Sync) {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, cases.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = cases.get(i) else { break };
                    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| case(c))) {
                        failures.lock().unwrap().push((i, panic));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    if let Some((_, panic)) = failures.into_iter().min_by_key(|(i, _)| *i) {
        resume_unwind(panic);
    }
}
