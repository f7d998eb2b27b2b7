//! `formsd accounts …`: show an account, change its plan, response limit or
//! notification address, link or unlink an identity-provider subject; through the
//! AdminService. Export and import (`archive`) move an account between instances.

use super::keys::parse_plan;
use super::{Admin, lower_name, refused};
use crate::app::Error;
use crate::http::timestamp_json;
use clap::Subcommand;
use forms::pb;
use serde_json::json;

#[derive(Subcommand)]
pub(crate) enum AccountsCommand {
    /// Show an account.
    Show { name: String },
    /// Link an identity-provider subject (a session token's `sub`) to an account.
    LinkIdentity {
        name: String,
        #[arg(long)]
        subject: String,
        /// The provider that issued the subject: the `--oidc-issuer` URL, or the session
        /// cookie's `--session-issuer` (`provider-cookie` when none is set). Without it,
        /// the subject's one identity moves here, or an unclaimed one is linked that the
        /// first provider to sign the subject in keeps.
        #[arg(long)]
        issuer: Option<String>,
    },
    /// Unlink an identity-provider subject from an account: its sessions stop working.
    UnlinkIdentity {
        name: String,
        #[arg(long)]
        subject: String,
        /// The provider that issued the subject; without it, the subject is unlinked
        /// whatever its provider.
        #[arg(long)]
        issuer: Option<String>,
    },
    /// Print a one-time link that signs in to the account's dashboard (single use,
    /// valid 15 minutes).
    SignInLink {
        name: String,
        /// Where the dashboard is reached, as the browser will open it.
        #[arg(
            long,
            env = "FORMS_PUBLIC_URL",
            default_value = "http://localhost:8080"
        )]
        base_url: String,
    },
    /// Write an account's archive (forms, responses and files, webhooks without their
    /// secrets) to a file, to import into another instance.
    Export {
        /// The account's id or name.
        account: String,
        /// The archive file to write.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Import an account's archive written by `formsd accounts export`, ids kept: all
    /// of it, or nothing. Prints the webhooks' new secrets once.
    Import {
        /// The archive file.
        file: std::path::PathBuf,
    },
    /// Change an account's plan, response limit or notification address.
    Update {
        name: String,
        #[arg(long, value_parser = parse_plan)]
        plan: Option<pb::Plan>,
        /// Responses per calendar month (UTC) across the account's forms.
        #[arg(long, conflicts_with = "default_response_limit")]
        response_limit: Option<i64>,
        /// Go back to the plan's default response limit.
        #[arg(long)]
        default_response_limit: bool,
        /// Address the owner's notifications are mailed to ('' removes it).
        #[arg(long)]
        email: Option<String>,
    },
}

pub(crate) async fn run(admin: Admin, command: AccountsCommand) -> Result<(), Error> {
    let mut client = admin.accounts();
    let account = match command {
        AccountsCommand::SignInLink { name, base_url } => {
            return sign_in_link(&admin, name, &base_url).await;
        }
        AccountsCommand::Export { account, out } => {
            return super::archive::export(&admin, account, &out).await;
        }
        AccountsCommand::Import { file } => return super::archive::import(&admin, &file).await,
        AccountsCommand::Show { name } => {
            let request = admin.request(pb::GetAccountRequest { name })?;
            client
                .get_account(request)
                .await
                .map_err(refused)?
                .into_inner()
                .account
        }
        AccountsCommand::LinkIdentity {
            name,
            subject,
            issuer,
        } => {
            let request = admin.request(pb::LinkIdentityRequest {
                name,
                subject,
                issuer,
            })?;
            client
                .link_identity(request)
                .await
                .map_err(refused)?
                .into_inner()
                .account
        }
        AccountsCommand::UnlinkIdentity {
            name,
            subject,
            issuer,
        } => {
            let request = admin.request(pb::UnlinkIdentityRequest {
                name,
                subject,
                issuer,
            })?;
            client
                .unlink_identity(request)
                .await
                .map_err(refused)?
                .into_inner()
                .account
        }
        AccountsCommand::Update {
            name,
            plan,
            response_limit,
            default_response_limit,
            email,
        } => {
            let mut account = pb::Account::default();
            let mut paths = Vec::new();
            if let Some(plan) = plan {
                account.plan = plan.into();
                paths.push("plan".to_owned());
            }
            // The mask names response_limit with no value to go back to the default.
            if response_limit.is_some() || default_response_limit {
                account.response_limit = response_limit;
                paths.push("response_limit".to_owned());
            }
            if let Some(email) = email {
                account.email = Some(email);
                paths.push("email".to_owned());
            }
            let request = admin.request(pb::UpdateAccountRequest {
                name,
                account: Some(account),
                update_mask: Some(prost_types::FieldMask { paths }),
            })?;
            client
                .update_account(request)
                .await
                .map_err(refused)?
                .into_inner()
                .account
        }
    };
    let account = account.ok_or("the core answered without the account")?;
    let plan = pb::Plan::try_from(account.plan)
        .map(|p| lower_name(p.as_str_name(), "PLAN_"))
        .map_err(|e| e.to_string())?;
    println!(
        "{}",
        json!({
            "id": account.id,
            "name": account.name,
            "plan": plan,
            "response_limit": account.response_limit,
            "email": account.email,
            "created_at": timestamp_json(account.created_at.as_ref()),
        })
    );
    Ok(())
}

/// `formsd accounts sign-in-link`: the URL on stdout (alone, for scripts), its expiry
/// on stderr.
async fn sign_in_link(admin: &Admin, name: String, base_url: &str) -> Result<(), Error> {
    let request = admin.request(pb::CreateSignInLinkRequest { account: name })?;
    let link = admin
        .sessions()
        .create_sign_in_link(request)
        .await
        .map_err(refused)?
        .into_inner();
    println!(
        "{}/app/sign-in/link?token={}",
        base_url.trim_end_matches('/'),
        link.token
    );
    eprintln!(
        "single use, valid until {}",
        timestamp_json(link.expires_at.as_ref())
    );
    Ok(())
}
