//! The process's log lines, written to stderr in batches by a thread of their own. A
//! line is formatted on the thread that logs it and appended to a shared buffer; the
//! writer thread takes the whole buffer every `FLUSH_INTERVAL`, or sooner once it holds
//! `WAKE_BYTES`. So a busy process makes one write (and one wake-up of whoever reads
//! stderr) for many lines, and the thread that logs wakes nobody per line: a channel
//! with a wake-up per line cost about a seventh of a REST GET's CPU (see the book's
//! benchmark records). A request never waits on a slow stderr: past `MAX_BYTES` waiting, lines
//! are dropped and counted (`formsd_log_lines_dropped_total`). On shutdown (the guard
//! dropped) what waits is written, and any line logged after is written at once: no
//! line is lost.
//!
//! The REST edge's access line, one a request, is rendered here directly (`access`), in
//! the shape `tracing`'s formatter gives an event: its formatter cost a request more
//! than the rest of its logging together (it parses the span's fields back from JSON
//! for each line).

use crate::config::LogFormat;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;
use tracing_subscriber::fmt::MakeWriter;

/// Longest a line waits before it is written.
const FLUSH_INTERVAL: Duration = Duration::from_millis(50);
/// Waiting lines that wake the writer before its interval is over.
const WAKE_BYTES: usize = 256 * 1024;
/// Waiting lines beyond which new ones are dropped (stderr is not keeping up).
const MAX_BYTES: usize = 16 * 1024 * 1024;

/// Where the log formatter writes its lines (a `MakeWriter`).
#[derive(Clone)]
pub(crate) struct Logs {
    shared: Arc<Shared>,
}

/// Stops the writer thread when dropped, once it has written every waiting line.
pub(crate) struct Guard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    waiting: Mutex<Waiting>,
    wake: Condvar,
}

#[derive(Default)]
struct Waiting {
    lines: Vec<u8>,
    /// The writer has been woken for the lines waiting (one wake-up per batch).
    woken: bool,
    /// The writer has stopped: lines are written by the thread that logs them.
    stopped: bool,
}

impl Shared {
    fn waiting(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, line: &[u8]) {
        let mut waiting = self.waiting();
        if waiting.stopped {
            drop(waiting);
            let _ = std::io::stderr().write_all(line);
            return;
        }
        if waiting.lines.len() + line.len() > MAX_BYTES {
            drop(waiting);
            metrics::counter!("formsd_log_lines_dropped_total").increment(1);
            return;
        }
        waiting.lines.extend_from_slice(line);
        if waiting.lines.len() >= WAKE_BYTES && !waiting.woken {
            waiting.woken = true;
            self.wake.notify_one();
        }
    }

    /// Writes batches to `out` until stopped, then what is left.
    fn write_batches(&self, out: &mut impl Write) {
        // Two buffers in turn: the lines taken are written while new ones gather.
        let mut batch = Vec::new();
        loop {
            let stopping = {
                let mut waiting = self.waiting();
                if !waiting.stopped && !waiting.woken {
                    waiting = self
                        .wake
                        .wait_timeout(waiting, FLUSH_INTERVAL)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                waiting.woken = false;
                std::mem::swap(&mut waiting.lines, &mut batch);
                waiting.stopped
            };
            if !batch.is_empty() {
                // Nowhere to report a failed write of the log itself.
                let _ = out.write_all(&batch).and_then(|()| out.flush());
                batch.clear();
            }
            if stopping {
                return;
            }
        }
    }
}

/// Where access lines go and how they look, once `main` has set logging up.
static ACCESS: OnceLock<(Logs, LogFormat)> = OnceLock::new();

/// Sends access lines to `logs`, rendered in `format`.
pub(crate) fn set_access(logs: Logs, format: LogFormat) {
    let _ = ACCESS.set((logs, format));
}

/// One request's access line (the caller checks that the level is on).
pub(crate) struct Access<'a> {
    pub(crate) request_id: &'a str,
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) status: u16,
    pub(crate) duration_ms: u64,
}

/// Writes the line `tracing` would write for the event `request` of target
/// `formsd::routes` in the request's span (`request{request_id, method, path}`).
pub(crate) fn access(line: &Access<'_>) {
    let Some((logs, format)) = ACCESS.get() else {
        return;
    };
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let mut out = Vec::with_capacity(320);
    let Access {
        request_id,
        method,
        path,
        status,
        duration_ms,
    } = line;
    // Writing to a Vec cannot fail.
    let _ = match format {
        LogFormat::Json => {
            let text = |s: &str| serde_json::to_string(s).unwrap_or_default();
            writeln!(
                out,
                "{{\"timestamp\":\"{now}\",\"level\":\"INFO\",\"fields\":{{\"message\":\"request\",\
                 \"status\":{status},\"duration_ms\":{duration_ms}}},\"target\":\"formsd::routes\",\
                 \"span\":{{\"method\":{},\"path\":{},\"request_id\":{},\"name\":\"request\"}},\
                 \"spans\":[]}}",
                text(method),
                text(path),
                text(request_id)
            )
        }
        LogFormat::Text => writeln!(
            out,
            "{now}  INFO request{{request_id={request_id} method={method} path={path}}}: \
             formsd::routes: request status={status} duration_ms={duration_ms}"
        ),
    };
    logs.shared.push(&out);
}

/// Starts the writer thread on `out`.
pub(crate) fn start(out: impl Write + Send + 'static) -> std::io::Result<(Logs, Guard)> {
    let shared = Arc::new(Shared {
        waiting: Mutex::default(),
        wake: Condvar::new(),
    });
    let writer = shared.clone();
    let mut out = out;
    let thread = std::thread::Builder::new()
        .name("formsd-log".into())
        .spawn(move || writer.write_batches(&mut out))?;
    Ok((
        Logs {
            shared: shared.clone(),
        },
        Guard {
            shared,
            thread: Some(thread),
        },
    ))
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.shared.waiting().stopped = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One line's writer: the formatter writes each line whole, in one call.
pub(crate) struct Line<'a>(&'a Shared);

impl Write for Line<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.push(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Logs {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line(&self.shared)
    }
}

/// Starts the process's logging: the filter (`RUST_LOG`, else `info`), the writer
/// thread, and the line format; the guard writes out what is left when dropped.
pub(crate) fn init(format: LogFormat) -> Guard {
    let mut filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // PostgreSQL's notices (sqlx logs them at INFO) say nothing to an operator: every
    // command's start said "relation _sqlx_migrations already exists, skipping". Kept
    // when RUST_LOG names sqlx itself.
    if !std::env::var("RUST_LOG").is_ok_and(|v| v.contains("sqlx"))
        && let Ok(quiet) = "sqlx::postgres::notice=warn".parse()
    {
        filter = filter.add_directive(quiet);
    }
    // Lines are written by a thread of their own, in batches (see `logs`). A process
    // that cannot start a thread now would not serve anyway.
    let (writer, guard) = start(std::io::stderr()).unwrap_or_else(|error| {
        eprintln!("formsd: error: starting the log writer: {error}");
        std::process::exit(1)
    });
    set_access(writer.clone(), format);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
    guard
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose bytes the test can read.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_is_written_in_order_by_the_time_the_guard_is_dropped() {
        let out = Captured::default();
        let (logs, guard) = start(out.clone()).unwrap();
        let mut expected = Vec::new();
        for n in 0..10_000 {
            let line = format!("line {n}\n");
            logs.make_writer().write_all(line.as_bytes()).unwrap();
            expected.extend_from_slice(line.as_bytes());
        }
        drop(guard);
        assert_eq!(*out.0.lock().unwrap(), expected);
    }

    #[test]
    fn lines_are_written_within_the_interval_without_a_wake_up() {
        let out = Captured::default();
        let (logs, _guard) = start(out.clone()).unwrap();
        logs.make_writer().write_all(b"one\n").unwrap();
        std::thread::sleep(FLUSH_INTERVAL * 4);
        assert_eq!(*out.0.lock().unwrap(), b"one\n");
    }

    #[test]
    fn a_stuck_writer_drops_lines_beyond_the_bound_rather_than_wait() {
        // A writer that never returns: the logging thread goes on regardless.
        struct Stuck;
        impl Write for Stuck {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                std::thread::park();
                Ok(0)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (logs, guard) = start(Stuck).unwrap();
        let line = vec![b'x'; 1024];
        for _ in 0..(3 * MAX_BYTES / 1024) {
            logs.make_writer().write_all(&line).unwrap();
        }
        // The stuck thread is left behind (the process's exit ends it): its guard would
        // wait for it.
        std::mem::forget(guard);
        let waiting = logs.shared.waiting().lines.len();
        assert!(waiting <= MAX_BYTES, "{waiting}");
    }
}
