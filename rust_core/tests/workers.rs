//! The engine's pool of worker processes (`ripsight_core::workers`), with stand-in workers
//! (shell commands): workers kept, killed at their deadline, reported with their exit status,
//! refused when they never say they are ready, and waited for when all are busy; and a PDF read,
//! which one deadline bounds, a worker's start included.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use ripsight_core::workers::{Pool, PoolOptions, Stopped, WorkerLimits};

/// What the stand-in workers say first.
const READY: &[u8] = b"stand-in-worker ";

/// A shell command that says it is ready, then runs `then`.
fn stand_in(dir: &std::path::Path, then: &str) -> Vec<OsString> {
    let mut ready = Vec::new();
    let mut payload = READY.to_vec();
    payload.extend_from_slice(b"test");
    ready.extend_from_slice(&(payload.len() as u64).to_be_bytes());
    ready.extend_from_slice(&payload);
    let file = dir.join("ready");
    std::fs::write(&file, ready).expect("write");
    vec![
        "sh".into(),
        "-c".into(),
        format!("cat '{}'; {then}", file.display()).into(),
    ]
}

fn options(command: Vec<OsString>, max_workers: usize) -> PoolOptions {
    PoolOptions {
        command,
        max_workers,
        max_idle: 1,
        start_time: Duration::from_secs(10),
        ready: READY,
        limits: WorkerLimits {
            memory_bytes: 1 << 30,
            cpu_seconds: 10,
        },
        background: false,
    }
}

fn pool(command: Vec<OsString>, max_workers: usize) -> Pool {
    Pool::new(options(command, max_workers))
}

#[test]
fn a_worker_that_answers_is_kept_for_the_next_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    // `cat` sends every frame back: an echo worker.
    let echo = pool(stand_in(dir.path(), "exec cat"), 2);
    let soon = || Instant::now() + Duration::from_secs(10);
    assert_eq!(
        echo.exchange(b"one", soon(), Duration::from_secs(10)),
        Ok(b"one".to_vec())
    );
    let big = vec![7u8; 3 << 20];
    assert_eq!(
        echo.exchange(&big, soon(), Duration::from_secs(10)),
        Ok(big)
    );
    assert_eq!(echo.started(), 1);
}

#[test]
fn a_worker_that_never_answers_is_killed_at_the_deadline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let silent = pool(stand_in(dir.path(), "exec sleep 60"), 1);
    let started = Instant::now();
    // Larger than a pipe holds: the writes block too, and the deadline still holds.
    let request = vec![1u8; 4 << 20];
    let answer = silent.exchange(
        &request,
        Instant::now() + Duration::from_secs(10),
        Duration::from_millis(300),
    );
    assert_eq!(answer, Err(Stopped::Deadline));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_worker_killed_at_the_deadline_reports_its_peak_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let silent = pool(stand_in(dir.path(), "exec sleep 60"), 1);
    let end = Instant::now() + Duration::from_millis(300);
    let Err((stopped, peak)) = silent.exchange_measured(&[b"x"], end) else {
        panic!("a silent worker answered");
    };
    assert_eq!(stopped, Stopped::Deadline);
    // `sleep`'s own memory: some pages, far from the limit.
    assert!(peak.is_some_and(|p| p > 0 && p < 1 << 30), "{peak:?}");
    let dying = pool(stand_in(dir.path(), "head -c 1 >/dev/null; exit 3"), 1);
    let end = Instant::now() + Duration::from_secs(10);
    let died = dying.exchange_measured(&[b"x"], end);
    assert!(
        matches!(died, Err((Stopped::Crashed(Some(3)), _))),
        "{died:?}"
    );
}

#[test]
fn a_worker_that_dies_is_reported_with_its_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dying = pool(stand_in(dir.path(), "head -c 1 >/dev/null; exit 3"), 1);
    let answer = dying.exchange(
        b"x",
        Instant::now() + Duration::from_secs(10),
        Duration::from_secs(10),
    );
    assert_eq!(answer, Err(Stopped::Crashed(Some(3))));
    // The next request starts a fresh worker.
    let again = dying.exchange(
        b"x",
        Instant::now() + Duration::from_secs(10),
        Duration::from_secs(10),
    );
    assert_eq!(again, Err(Stopped::Crashed(Some(3))));
    assert_eq!(dying.started(), 2);
}

#[test]
fn a_command_that_is_not_a_worker_is_unavailable() {
    let missing = pool(vec!["/nonexistent/worker".into()], 1);
    let soon = Instant::now() + Duration::from_secs(10);
    assert!(matches!(
        missing.exchange(b"x", soon, Duration::from_secs(1)),
        Err(Stopped::Unavailable(_))
    ));
    let quiet = pool(vec!["true".into()], 1);
    assert!(matches!(
        quiet.exchange(b"x", soon, Duration::from_secs(1)),
        Err(Stopped::Unavailable(_))
    ));
    let empty = pool(Vec::new(), 1);
    assert!(matches!(
        empty.exchange(b"x", soon, Duration::from_secs(1)),
        Err(Stopped::Unavailable(_))
    ));
}

#[test]
fn a_request_that_finds_every_worker_busy_waits_until_its_deadline() {
    let dir = tempfile::tempdir().expect("tempdir");
    let one = std::sync::Arc::new(pool(stand_in(dir.path(), "exec sleep 60"), 1));
    let holder = {
        let one = std::sync::Arc::clone(&one);
        std::thread::spawn(move || {
            one.exchange(
                b"x",
                Instant::now() + Duration::from_secs(10),
                Duration::from_secs(2),
            )
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let waited = Instant::now();
    let answer = one.exchange(
        b"y",
        Instant::now() + Duration::from_millis(200),
        Duration::from_secs(1),
    );
    assert_eq!(answer, Err(Stopped::Busy));
    assert!(waited.elapsed() < Duration::from_secs(1));
    assert_eq!(holder.join().expect("thread"), Err(Stopped::Deadline));
}

#[test]
fn one_deadline_covers_a_worker_that_is_slow_to_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Says it is ready only after a minute; the pool gives starts ten seconds.
    let slow = pool(vec!["sh".into(), "-c".into(), "sleep 60".into()], 1);
    let started = Instant::now();
    let answer = slow.exchange_by(&[b"x"], Instant::now() + Duration::from_millis(300));
    assert_eq!(answer, Err(Stopped::Deadline));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // And an answer that comes too late, from a worker that started in time.
    let silent = pool(stand_in(dir.path(), "exec sleep 60"), 1);
    let started = Instant::now();
    let answer = silent.exchange_by(&[b"x"], Instant::now() + Duration::from_millis(300));
    assert_eq!(answer, Err(Stopped::Deadline));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let echo = pool(stand_in(dir.path(), "exec cat"), 1);
    let soon = Instant::now() + Duration::from_secs(10);
    assert_eq!(echo.exchange_by(&[b"one"], soon), Ok(b"one".to_vec()));
    // A frame in parts is one frame.
    assert_eq!(
        echo.exchange_by(&[b"o", b"", b"ne"], soon),
        Ok(b"one".to_vec())
    );
}

#[test]
fn a_worker_that_says_another_ready_is_unavailable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let other = Pool::new(PoolOptions {
        ready: b"another-worker ",
        ..options(stand_in(dir.path(), "exec cat"), 1)
    });
    let soon = Instant::now() + Duration::from_secs(10);
    assert!(matches!(
        other.exchange(b"x", soon, Duration::from_secs(1)),
        Err(Stopped::Unavailable(detail)) if detail.contains("another-worker")
    ));
}

#[test]
fn closing_the_idle_workers_makes_the_next_request_start_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let echo = pool(stand_in(dir.path(), "exec cat"), 1);
    let soon = || Instant::now() + Duration::from_secs(10);
    assert_eq!(echo.exchange_by(&[b"one"], soon()), Ok(b"one".to_vec()));
    assert_eq!(echo.exchange_by(&[b"two"], soon()), Ok(b"two".to_vec()));
    assert_eq!(echo.started(), 1);
    echo.close_idle();
    assert_eq!(echo.exchange_by(&[b"three"], soon()), Ok(b"three".to_vec()));
    assert_eq!(echo.started(), 2);
}

#[test]
fn a_pdf_read_ends_by_its_deadline_whatever_its_worker_does() {
    use ripsight_core::budget::CancelToken;
    use ripsight_core::media::pdf::{PdfFailure, PdfOptions, PdfReader};
    use ripsight_core::workspace::{Workspace, WorkspaceOptions};

    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.pdf"), b"%PDF-1.7\n").expect("write");
    let workspace = Workspace::new(dir.path(), WorkspaceOptions::default()).expect("workspace");
    let options = PdfOptions {
        deadline_ms: 300,
        ..PdfOptions::default()
    };
    // One never says it is ready; the other is ready and never answers.
    let mut ready = Vec::new();
    let mut payload = ripsight_core::media::pdf::READY.to_vec();
    payload.extend_from_slice(b"test");
    ready.extend_from_slice(&(payload.len() as u64).to_be_bytes());
    ready.extend_from_slice(&payload);
    std::fs::write(dir.path().join("ready"), ready).expect("write");
    let silent = format!(
        "cat '{}'; exec sleep 60",
        dir.path().join("ready").display()
    );
    for script in ["exec sleep 60", silent.as_str()] {
        let reader = PdfReader::new(vec!["sh".into(), "-c".into(), script.into()]);
        let started = Instant::now();
        let read = reader
            .read(&workspace, "a.pdf".as_ref(), &options, &CancelToken::new())
            .expect("read");
        assert_eq!(
            (read.failure, read.deadline_ms),
            (Some(PdfFailure::Deadline), 300),
            "{script}"
        );
        assert!(started.elapsed() < Duration::from_secs(3), "{script}");
    }
}

#[test]
fn a_worker_is_given_its_limits_in_its_environment() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Reads the one-byte request, then answers with its memory limit (10 digits: 1 GiB).
    let told = pool(
        stand_in(
            dir.path(),
            r#"head -c 9 >/dev/null; printf '\000\000\000\000\000\000\000\012%s' "$RIPSIGHT_WORKER_MEMORY_BYTES"; exec sleep 60"#,
        ),
        1,
    );
    let soon = Instant::now() + Duration::from_secs(10);
    assert_eq!(told.exchange_by(&[b"x"], soon), Ok(b"1073741824".to_vec()));
}

#[test]
fn an_idle_worker_that_ended_is_passed_over() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Answers one request ("ok"), then exits while idle.
    let once = pool(
        stand_in(
            dir.path(),
            r#"head -c 9 >/dev/null; printf '\000\000\000\000\000\000\000\002ok'; exit 0"#,
        ),
        1,
    );
    let soon = || Instant::now() + Duration::from_secs(10);
    assert_eq!(once.exchange_by(&[b"x"], soon()), Ok(b"ok".to_vec()));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(once.exchange_by(&[b"y"], soon()), Ok(b"ok".to_vec()));
    assert_eq!(once.started(), 2);
}
