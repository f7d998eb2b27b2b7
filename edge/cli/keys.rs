//! `formsd keys …`: create, revoke and list API keys through the AdminService.

use super::{Admin, lower_name, proto_name, refused};
use crate::app::Error;
use crate::http::timestamp_json;
use clap::Subcommand;
use forms::pb;
use serde_json::json;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Subcommand)]
pub(crate) enum KeysCommand {
    /// Create a key (and its account when new); prints the key once.
    Create {
        /// Account name.
        #[arg(long)]
        account: String,
        /// Plan of a new account (an existing account keeps its plan).
        #[arg(long, value_parser = parse_plan)]
        plan: Option<pb::Plan>,
        /// Comma-separated scopes: read, write, admin; '' for a usage-only key.
        #[arg(long, value_delimiter = ',', value_parser = parse_scope, required = true)]
        scopes: Vec<Option<pb::Scope>>,
        /// Lifetime, e.g. 30d, 12h.
        #[arg(long, value_parser = humantime::parse_duration)]
        expires_in: Option<Duration>,
        /// Print {"key","key_id","account_id"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a key.
    Revoke {
        /// The key's id (UUID).
        key_id: uuid::Uuid,
    },
    /// List an account's keys (never the secrets).
    List {
        #[arg(long)]
        account: String,
        #[arg(long)]
        json: bool,
    },
}

/// `pro` → `Plan::Pro`; also used by `accounts update`.
pub(crate) fn parse_plan(s: &str) -> Result<pb::Plan, String> {
    match pb::Plan::from_str_name(&proto_name(s, "PLAN_")) {
        Some(plan) if plan != pb::Plan::Unspecified => Ok(plan),
        _ => Err(format!("plan must be free, pro or enterprise, got {s:?}")),
    }
}

/// A scope, or `None` for the empty value of `--scopes ''` (a usage-only key).
fn parse_scope(s: &str) -> Result<Option<pb::Scope>, String> {
    if s.trim().is_empty() {
        return Ok(None);
    }
    match pb::Scope::from_str_name(&proto_name(s, "SCOPE_")) {
        Some(scope) if scope != pb::Scope::Unspecified => Ok(Some(scope)),
        _ => Err(format!("scopes must be read, write or admin, got {s:?}")),
    }
}

fn scope_names(key: &pb::ApiKey) -> Vec<String> {
    key.scopes
        .iter()
        .filter_map(|s| pb::Scope::try_from(*s).ok())
        .map(|s| lower_name(s.as_str_name(), "SCOPE_"))
        .collect()
}

fn is_past(ts: &prost_types::Timestamp) -> bool {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    u64::try_from(ts.seconds).is_ok_and(|at| at <= now)
}

pub(crate) async fn run(admin: Admin, command: KeysCommand) -> Result<(), Error> {
    let mut client = admin.accounts();
    match command {
        KeysCommand::Create {
            account,
            plan,
            scopes,
            expires_in,
            json,
        } => {
            let request = pb::CreateKeyRequest {
                account,
                // Absent: PLAN_UNSPECIFIED, i.e. "keep the plan of an existing account".
                plan: plan.map(i32::from).unwrap_or_default(),
                scopes: scopes.into_iter().flatten().map(Into::into).collect(),
                expires_in: expires_in
                    .map(|d| prost_types::Duration::try_from(d).map_err(|e| e.to_string()))
                    .transpose()?,
            };
            let created = client
                .create_key(admin.request(request)?)
                .await
                .map_err(refused)?
                .into_inner();
            if json {
                println!(
                    "{}",
                    json!({
                        "key": created.key,
                        "key_id": created.key_id,
                        "account_id": created.account_id,
                    })
                );
            } else {
                println!("key:        {}", created.key);
                println!("key_id:     {}", created.key_id);
                println!("account_id: {}", created.account_id);
                println!("Store the key now: it is not shown again.");
            }
        }
        KeysCommand::Revoke { key_id } => {
            let request = pb::RevokeKeyRequest {
                key_id: key_id.to_string(),
            };
            let reply = client
                .revoke_key(admin.request(request)?)
                .await
                .map_err(refused)?
                .into_inner();
            let key = reply.key.unwrap_or_default();
            println!("revoked {} ({}…)", key.id, key.prefix);
        }
        KeysCommand::List { account, json } => {
            let keys = client
                .list_keys(admin.request(pb::ListKeysRequest { account })?)
                .await
                .map_err(refused)?
                .into_inner()
                .keys;
            if json {
                let items: Vec<_> = keys
                    .iter()
                    .map(|k| {
                        json!({
                            "key_id": k.id,
                            "prefix": k.prefix,
                            "scopes": scope_names(k),
                            "created_at": timestamp_json(k.created_at.as_ref()),
                            "expires_at": timestamp_json(k.expires_at.as_ref()),
                            "revoked_at": timestamp_json(k.revoked_at.as_ref()),
                        })
                    })
                    .collect();
                println!("{}", serde_json::Value::Array(items));
            } else {
                for k in &keys {
                    let state = match (&k.revoked_at, &k.expires_at) {
                        (Some(_), _) => "revoked",
                        (None, Some(at)) if is_past(at) => "expired",
                        _ => "active",
                    };
                    let scopes = scope_names(k).join(",");
                    println!("{}  {}…  {scopes:<16}  {state}", k.id, k.prefix);
                }
            }
        }
    }
    Ok(())
}
