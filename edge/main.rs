//! `formsd`: the forms service in one binary. `serve` runs the gRPC core and the REST
//! edge (together, or each alone for scale-out; assembled in `app`); `keys`, `accounts`
//! and `webhooks` are the operator's command line (`cli`), which calls the core's admin
//! gRPC services in-process.

mod app;
mod cli;
mod config;
mod dashboard;
mod hosted;
mod http;
mod limits;
mod rest;
mod router;

use app::{Application, Error};
use clap::{Parser, Subcommand};
use cli::{
    accounts::AccountsCommand, keys::KeysCommand, notifications::NotificationsCommand,
    webhooks::WebhooksCommand,
};
use config::{DbArgs, LogFormat, ServeArgs};

// The command line, here where it is dispatched: the flags of `serve` are in `config`,
// those of the operator's commands in `cli`.

/// Self-hostable form collection service.
#[derive(Parser)]
#[command(name = "formsd", version, about)]
struct Cli {
    #[command(flatten)]
    db: DbArgs,
    /// Log line format.
    #[arg(long, env = "FORMS_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service.
    Serve(Box<ServeArgs>),
    /// Manage API keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Manage accounts.
    #[command(subcommand)]
    Accounts(AccountsCommand),
    /// Operate webhook subscriptions and their deliveries.
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// Look at owner notifications (mails for new responses).
    #[command(subcommand)]
    Notifications(NotificationsCommand),
    /// Print the OpenAPI document of the REST API (the one served at /api/v1/openapi.json).
    Openapi,
}

/// The request path allocates and frees many small buffers (headers, messages, JSON,
/// log lines) across threads; glibc's allocator spent about 15% of a GET's CPU on
/// them, mimalloc a fraction of that (see the book's benchmark records).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_arena_eager_commit` (the same number in its v2 and v3, pinned
/// by Cargo.lock). By default mimalloc commits its arenas whole on systems that
/// overcommit, and then gives freed pages back lazily: the idle process held about
/// 35 MB where it holds 20 MB with commits on demand, at no cost measured in the
/// benchmark.
#[cfg(target_os = "linux")]
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Sets the allocator's defaults before the first allocation (which reserves an arena,
/// and which std makes before `main`): run by the loader with the program's other
/// constructors (their order is the linker's, so this is as early as it can be, not
/// guaranteed first). `MIMALLOC_ARENA_EAGER_COMMIT` in the environment still wins.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static ALLOCATOR_OPTIONS: extern "C" fn() = allocator_options;

#[cfg(target_os = "linux")]
extern "C" fn allocator_options() {
    // SAFETY: sets a default of a process-wide option of the allocator (a static),
    // before any thread of ours runs.
    unsafe { libmimalloc_sys::mi_option_set_default(ARENA_EAGER_COMMIT, 0) };
}

#[tokio::main]
async fn main() {
    // One TLS provider for the whole process (reqwest and sqlx use rustls).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    let logs = init_logging(cli.log_format);
    let outcome = run(cli).await;
    // Writes out what the log writer still holds.
    drop(logs);
    if let Err(error) = outcome {
        eprintln!("formsd: error: {error}");
        std::process::exit(1);
    }
}

async fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Serve(args) => {
            let app = Application::build(&cli.db, *args).await?;
            report_ready(&app);
            app.run_until(shutdown_signal()).await
        }
        Command::Keys(cmd) => cli::run(&cli.db, false, |admin| cli::keys::run(admin, cmd)).await,
        Command::Accounts(cmd) => {
            cli::run(&cli.db, false, |admin| cli::accounts::run(admin, cmd)).await
        }
        Command::Notifications(cmd) => {
            cli::run(&cli.db, false, |admin| cli::notifications::run(admin, cmd)).await
        }
        Command::Webhooks(cmd) => {
            let allow_private = cmd.allow_private();
            cli::run(&cli.db, allow_private, |admin| {
                cli::webhooks::run(admin, cmd)
            })
            .await
        }
        Command::Openapi => {
            println!("{}", rest::openapi::document().to_pretty_json()?);
            Ok(())
        }
    }
}

/// Tells whoever started us that we serve, and where: one JSON line on stdout,
/// `{"ready":true,"http_addr":…,"grpc_addr":…}` (an address is null when this role does
/// not run that half). Supervisors and tests wait for it rather than for log text.
fn report_ready(app: &Application) {
    let addr = |a: Option<std::net::SocketAddr>| a.map(|a| a.to_string());
    println!(
        "{}",
        serde_json::json!({
            "ready": true,
            "http_addr": addr(app.http_addr()),
            "grpc_addr": addr(app.grpc_addr()),
            "metrics_addr": addr(app.metrics_addr()),
        })
    );
}

fn init_logging(format: LogFormat) -> http::logs::Guard {
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
    let (writer, guard) = http::logs::start(std::io::stderr()).unwrap_or_else(|error| {
        eprintln!("formsd: error: starting the log writer: {error}");
        std::process::exit(1)
    });
    http::logs::set_access(writer.clone(), format);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
    guard
}

/// Resolves when SIGINT or SIGTERM arrives.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
    else {
        let _ = ctrl_c.await;
        return;
    };
    tokio::select! {
        _ = ctrl_c => {}
        _ = term.recv() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn flags_are_consistent() {
        Cli::command().debug_assert();
    }
}
