//! `formsd`: the forms service in one binary. `serve` runs the gRPC core and the REST
//! edge (together, or each alone for scale-out; assembled in `app`); `keys`, `accounts`
//! and `webhooks` are the operator's command line (`cli`), which calls the core's admin
//! gRPC services in-process.

mod allocator;
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
    accounts::AccountsCommand, audit::AuditCommand, keys::KeysCommand,
    notifications::NotificationsCommand, webhooks::WebhooksCommand,
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
    /// Check the audit trail.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Print the OpenAPI document of the REST API (the one served at /api/v1/openapi.json).
    Openapi,
}

#[tokio::main]
async fn main() {
    // One TLS provider for the whole process (reqwest and sqlx use rustls).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = Cli::parse();
    let logs = http::logs::init(cli.log_format);
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
        Command::Audit(cmd) => cli::run(&cli.db, false, |admin| cli::audit::run(admin, cmd)).await,
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
