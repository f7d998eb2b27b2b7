//! The generated clients of `clients/` (Python: grpcio; TypeScript: protobuf-es with
//! Connect) against the real binary: each client's e2e script creates and publishes a
//! form, creates a response idempotently, lists responses by cursor, and decodes the
//! ErrorInfo and RetryInfo details of NOT_FOUND and RATE_LIMITED errors. The REST client
//! generated from docs/openapi.json (openapi-typescript + openapi-fetch) does the same
//! round trip over REST.
//!
//! Needs the pinned tools: `pip install -r clients/python/requirements.txt` and
//! `npm install`. Without them a test says SKIPPED and passes, unless
//! FORMS_REQUIRE_PYTHON_TOOLS=1 / FORMS_REQUIRE_NODE_TOOLS=1 (as in CI).

use crate::harness::*;
use ::forms::accounts::Plan;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Per-minute limit of pro keys on the test server: the scripts' limited key hits it.
const PRO_LIMIT: &str = "5";

/// How long one e2e script may take.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(120);

/// Whether a client's tools are here; panics when `require_var` is 1 and they are not.
fn tools_available(ready: bool, require_var: &str, what: &str) -> bool {
    if !ready {
        assert!(
            std::env::var(require_var).as_deref() != Ok("1"),
            "{require_var}=1 but {what} is missing"
        );
        eprintln!("SKIPPED: the client test needs {what}");
    }
    ready
}

fn python_available() -> bool {
    let importable = std::process::Command::new("python3")
        .args([
            "-c",
            "import grpc, grpc_status, google.rpc.error_details_pb2",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    tools_available(
        importable,
        "FORMS_REQUIRE_PYTHON_TOOLS",
        "python3 with grpcio, grpcio-status and googleapis-common-protos \
         (pip install -r clients/python/requirements.txt)",
    )
}

fn node_available() -> bool {
    let ready = [
        "node_modules/@connectrpc/connect-node",
        "node_modules/openapi-fetch",
        "node_modules/.bin/tsx",
    ]
    .iter()
    .all(|p| Path::new(ROOT).join(p).exists());
    tools_available(
        ready,
        "FORMS_REQUIRE_NODE_TOOLS",
        "node_modules/@connectrpc/connect-node, openapi-fetch and .bin/tsx (npm install)",
    )
}

/// Starts formsd with a small pro limit, makes an enterprise key with every scope for the
/// script's main flow and a pro key for its rate-limit step, runs `program args…` with
/// them in the environment, and asserts it succeeds.
async fn run_client(program: &str, args: &[&str]) {
    let app = TestApp::spawn_with(&["--pro-rate-limit", PRO_LIMIT]).await;
    let key = app.key(Plan::Enterprise, ALL).await;
    let limited = app.key(PRO, READ).await;
    let started = Instant::now();
    let child = tokio::process::Command::new(program)
        .args(args)
        .current_dir(ROOT)
        .env("FORMS_GRPC_URL", &app.grpc_url)
        .env("FORMS_REST_URL", &app.http_base)
        .env("FORMS_API_KEY", &key)
        .env("FORMS_LIMITED_API_KEY", &limited)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {program}: {e}"));
    let output = tokio::time::timeout(SCRIPT_TIMEOUT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{program} {args:?} ran longer than {SCRIPT_TIMEOUT:?}"))
        .expect("waiting for the client script");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{program} {args:?} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}\nformsd:\n{}",
        output.status,
        app.logs().text()
    );
    eprintln!(
        "{program} {args:?} passed in {:.1?}:\n{stdout}",
        started.elapsed()
    );
}

#[tokio::test]
async fn the_generated_python_client_runs_its_e2e_script() {
    if !python_available() {
        return;
    }
    run_client("python3", &["clients/python/e2e.py"]).await;
}

#[tokio::test]
async fn the_generated_typescript_client_runs_its_e2e_script() {
    if !node_available() {
        return;
    }
    let tsx = format!("{ROOT}/node_modules/.bin/tsx");
    run_client(&tsx, &["clients/typescript/e2e.ts"]).await;
}

#[tokio::test]
async fn the_generated_rest_client_runs_its_e2e_script() {
    if !node_available() {
        return;
    }
    let tsx = format!("{ROOT}/node_modules/.bin/tsx");
    run_client(&tsx, &["clients/rest-typescript/e2e.ts"]).await;
}
