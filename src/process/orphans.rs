//! Descendants that left their server's process group.
//!
//! Killing a server's process group reaches everything it started, except a
//! process that moved to a group of its own (`setsid`, `setpgid`: a daemon,
//! a helper started with `setsid`). On Linux the owner can make itself a
//! child subreaper: every descendant whose parent dies is then re-parented
//! to the owner instead of to init, so once the server is gone its escaped
//! descendants are children of the owner, which finds them in `/proc` and
//! kills and reaps them.
//!
//! What is out of reach: a process that was re-parented before the owner
//! became a subreaper, or whose chain up to the owner passes through a
//! process that is itself a subreaper; a descendant of a server that is
//! still running (it is not an orphan yet); and everything, if the owner is
//! killed by SIGKILL, since no code of its own runs then.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions};

/// Whether [`adopt_orphans`] made this process a subreaper.
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// How long a sweep waits for the processes it killed to die.
const SWEEP_GRACE: Duration = Duration::from_secs(2);

/// Makes this process the reaper of its orphaned descendants, so that
/// [`kill_orphans`] can reach processes that left their server's group.
/// Returns whether it could (Linux only). For a command-line owner whose
/// only children are the servers it starts: from then on, every child of
/// the process that is not a live server counts as an orphan.
pub fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    if rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok() {
        ADOPTING.store(true, Ordering::Release);
    }
    ADOPTING.load(Ordering::Acquire)
}

/// Whether [`adopt_orphans`] is in effect.
pub(crate) fn adopting() -> bool {
    ADOPTING.load(Ordering::Acquire)
}

/// Kills and reaps every child of this process, and the children they leave
/// in turn, until none is left or a short grace has passed. Call it only
/// when no child of the process should live: after the last server is
/// reaped.
pub fn kill_orphans() {
    kill_orphans_sparing(&BTreeSet::new());
}

/// Kills and reaps every child of this process but the live servers in
/// `spare` (process ids), as [`kill_orphans`] does. A live server is its
/// owner's to reap: a sweep that reaped it would leave the owner waiting on
/// a process id whose status is gone.
pub(crate) fn kill_orphans_sparing(spare: &BTreeSet<i32>) {
    if !adopting() {
        return;
    }
    let deadline = Instant::now() + SWEEP_GRACE;
    loop {
        let mut children = children();
        children.retain(|pid| !spare.contains(&pid.as_raw_nonzero().get()));
        if children.is_empty() {
            return;
        }
        for &pid in &children {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
        for pid in children {
            reap(pid, deadline);
        }
        if Instant::now() >= deadline {
            return;
        }
    }
}

/// Waits until `deadline` for child `pid`, just killed, and reaps it.
#[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
fn reap(pid: Pid, deadline: Instant) {
    // Readable once the process has exited: a wait with a deadline, where
    // a blocking `waitpid` could hang on a process stuck in the kernel.
    #[cfg(target_os = "linux")]
    if let Ok(pidfd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
        let left = deadline.saturating_duration_since(Instant::now());
        let timeout = rustix::event::Timespec {
            tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        let mut fds = [rustix::event::PollFd::new(
            &pidfd,
            rustix::event::PollFlags::IN,
        )];
        while let Err(rustix::io::Errno::INTR) = rustix::event::poll(&mut fds, Some(&timeout)) {}
    }
    let _ = rustix::process::waitpid(Some(pid), WaitOptions::NOHANG);
}

/// The children of this process, from `/proc` (empty where there is none).
fn children() -> Vec<Pid> {
    // One call says whether there is any child at all, which is the common
    // case, without reading a file per process of the system.
    let any = rustix::process::waitid(
        rustix::process::WaitId::All,
        rustix::process::WaitIdOptions::EXITED
            | rustix::process::WaitIdOptions::NOHANG
            | rustix::process::WaitIdOptions::NOWAIT,
    );
    if matches!(any, Err(rustix::io::Errno::CHILD)) {
        return Vec::new();
    }
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| parent_of(pid) == Some(me))
        .filter_map(Pid::from_raw)
        .collect()
}

/// The parent of process `pid`, from `/proc/PID/stat`.
fn parent_of(pid: i32) -> Option<i32> {
    use std::io::Read as _;
    // One read: the file reports no size, and the fields up to the parent
    // are short, since the kernel keeps 16 bytes of the command's name.
    let mut buf = [0u8; 512];
    let len = std::fs::File::open(format!("/proc/{pid}/stat"))
        .and_then(|mut file| file.read(&mut buf))
        .ok()?;
    let stat = &buf[..len];
    // The command name is in parentheses and may hold anything, `)` too:
    // the fields start after the last one. They are the state, then the
    // parent.
    let at = stat.iter().rposition(|&b| b == b')')?;
    let fields = std::str::from_utf8(&stat[at + 1..]).ok()?;
    fields.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_past_a_name_with_parentheses() {
        let me = rustix::process::getpid().as_raw_nonzero().get();
        let parent = rustix::process::getppid().map(|p| p.as_raw_nonzero().get());
        assert_eq!(parent_of(me), parent);
        assert_eq!(parent_of(i32::MAX), None);
    }
}
