//! The gate every API call passes: authentication, plan, rate limit, usage accounting,
//! scope; and, on the way out, the metadata every reply carries (rate-limit figures,
//! request id, replay flag), errors included.
//!
//! `caller` identifies who calls (with `keys`, the per-instance key cache), `lease`
//! admits requests from leased blocks of the key's window, `limits` holds the
//! failed-auth throttle, `concurrency` caps the exports open at once and the reads
//! whose cost the caller chooses (both hold a database connection), and usage is counted in memory by `usage::tally`; this module
//! ties them together. A request whose key is cached and whose lease has room costs no
//! query at all.

mod caller;
pub(crate) mod concurrency;
pub(crate) mod keys;
pub(crate) mod lease;
mod limits;
pub mod permissions;
pub(crate) mod store;

pub(crate) use caller::{Caller, Dashboard, Member};
pub(crate) use caller::{client_ip, request_id, user_agent};
pub(crate) use limits::AuthGuard;
pub(crate) use limits::throttle_key;
pub(crate) use permissions::Role;

use crate::accounts::{Scope, Scopes};
use crate::config::CoreConfig;
use crate::db::reachable::Reachable;
use crate::error::CoreError;
use crate::usage::tally::Tally;
use caller::metadata_str;
use chrono::NaiveDate;
use concurrency::Concurrency;
use keys::KeyCache;
use lease::Leases;
use sqlx::PgPool;
use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// Metadata the edge (or any client) sets to name the end client's IP address.
pub(crate) const CLIENT_IP: &str = "x-client-ip";
/// Metadata the edge sets to name the end client's user agent (believed as CLIENT_IP).
pub(crate) const CLIENT_USER_AGENT: &str = "x-client-user-agent";
pub(crate) use crate::pb::metadata::EDGE_SECRET;
pub(crate) use crate::telemetry::REQUEST_ID;
/// Metadata carrying the idempotency key of a create.
pub(crate) const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// What an operation gets besides its message.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub caller: Caller,
    /// The caller as the audit trail names it, with its address and user agent.
    pub actor: crate::audit::Actor,
    pub request_id: String,
    pub idempotency_key: Option<String>,
}

/// Rate-limit figures of a reply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RateInfo {
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the window resets.
    pub reset: i64,
}

/// The gate, shared by all services of the core.
#[derive(Clone)]
pub(crate) struct Gate {
    pool: PgPool,
    config: Arc<CoreConfig>,
    guard: Arc<AuthGuard>,
    keys: KeyCache,
    leases: Leases,
    tally: Tally,
    exports: Concurrency,
    /// Reads whose cost the caller chooses (filters, searches, summaries).
    reads: Concurrency,
    /// Whether the database answers, as the readiness probe last found it.
    reachable: Reachable,
}

/// The outcome of admission: who, with which figures, and which usage row to charge
/// an error to.
struct Admission {
    caller: Result<Caller, CoreError>,
    rate: Option<RateInfo>,
    charged: Option<(Uuid, NaiveDate)>,
}

impl Gate {
    pub(crate) fn new(pool: PgPool, config: Arc<CoreConfig>) -> Self {
        let guard = Arc::new(AuthGuard::new(config.auth_failures_per_minute));
        // By default exports may hold half the pool: the other half serves everything
        // else however many exports are open.
        let pool_size = usize::try_from(pool.options().get_max_connections()).unwrap_or(1);
        let exports = Concurrency::new(
            "exports",
            config.exports.per_account,
            config.exports.per_instance.unwrap_or(pool_size / 2),
        );
        // Such reads may hold a quarter by default: with the exports' half, a quarter of
        // the pool is always left for everything else, whoever reads what.
        let reads = Concurrency::new(
            "reads",
            config.reads.per_account,
            config.reads.per_instance.unwrap_or(pool_size / 4),
        );
        Self {
            exports,
            reads,
            reachable: Reachable::default(),
            pool,
            config,
            guard,
            keys: KeyCache::default(),
            leases: Leases::default(),
            tally: Tally::default(),
        }
    }

    pub(crate) fn guard(&self) -> Arc<AuthGuard> {
        self.guard.clone()
    }

    pub(crate) fn keys(&self) -> &KeyCache {
        &self.keys
    }

    /// The core's settings (plans' limits, for the owner's account page).
    pub(crate) fn config(&self) -> &CoreConfig {
        &self.config
    }

    pub(crate) fn leases(&self) -> &Leases {
        &self.leases
    }

    pub(crate) fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Whether the database answers: set by the readiness probe, read by every call.
    pub(crate) fn reachable(&self) -> &Reachable {
        &self.reachable
    }

    /// The cap on exports open at once.
    pub(crate) fn exports(&self) -> &Concurrency {
        &self.exports
    }

    /// The cap on reads whose cost the caller chooses, running at once.
    pub(crate) fn reads(&self) -> &Concurrency {
        &self.reads
    }

    /// Runs `op` for an authenticated caller holding `need` (None: any valid key).
    pub(crate) async fn call<T, R, F, Fut>(
        &self,
        req: Request<T>,
        need: Option<Scope>,
        op: F,
    ) -> Result<Response<R>, Status>
    where
        F: FnOnce(Ctx, T) -> Fut,
        Fut: Future<Output = Result<R, CoreError>>,
    {
        self.call_replayable(req, need, |ctx, msg| async move {
            op(ctx, msg).await.map(|reply| (reply, false))
        })
        .await
    }

    /// Like [`Gate::call`], for operations that may replay a stored reply (idempotency):
    /// `op` answers the message and whether it is a replay.
    pub(crate) async fn call_replayable<T, R, F, Fut>(
        &self,
        req: Request<T>,
        need: Option<Scope>,
        op: F,
    ) -> Result<Response<R>, Status>
    where
        F: FnOnce(Ctx, T) -> Fut,
        Fut: Future<Output = Result<(R, bool), CoreError>>,
    {
        let request_id = request_id(req.metadata());
        let ip = client_ip(&req, self.config.edge_secret.as_deref());
        let agent = user_agent(&req, self.config.edge_secret.as_deref());
        let idempotency_key = metadata_str(req.metadata(), IDEMPOTENCY_KEY).map(str::to_owned);
        let permission = permissions::of_path(
            req.extensions()
                .get::<permissions::MethodPath>()
                .map(|path| path.0.as_str()),
        );
        // While the database is known not to answer, nothing waits for a connection;
        // and a server found refusing connections meanwhile ends the wait of this
        // request (its connects would be retried until the acquire deadline).
        let refused = self.reachable.refused();
        tokio::pin!(refused);
        let admission = match self.reachable.is_up() {
            true => tokio::select! {
                admission = self.admit(req.metadata(), ip, (need, permission)) => admission,
                () = &mut refused => unaccounted(CoreError::Unavailable),
            },
            false => unaccounted(CoreError::Unavailable),
        };
        let outcome = match admission.caller {
            Ok(caller) => {
                let ctx = Ctx {
                    actor: crate::audit::Actor::of_caller(&caller, ip, &agent),
                    caller,
                    request_id: request_id.clone(),
                    idempotency_key,
                };
                tokio::select! {
                    outcome = op(ctx, req.into_inner()) => outcome,
                    () = &mut refused => Err(CoreError::Unavailable),
                }
            }
            Err(e) => Err(e),
        };
        if let Err(error) = &outcome {
            // A connection lost: the server may be gone, and readiness looks now
            // rather than at its next interval.
            if error.is_connection_lost() {
                self.reachable.kick();
            }
            if let Some((key_id, day)) = admission.charged {
                self.tally.error(key_id, day);
            }
        }
        match outcome {
            Ok((message, replayed)) => {
                let mut response = Response::new(message);
                let md = response.metadata_mut();
                decorate(md, &request_id, admission.rate);
                if replayed {
                    md.insert("idempotent-replayed", MetadataValue::from_static("true"));
                }
                Ok(response)
            }
            Err(error) => {
                let retry_after = error.retry_after();
                let mut status = error.into_status(&request_id);
                let md = status.metadata_mut();
                decorate(md, &request_id, admission.rate);
                if let Some(secs) = retry_after {
                    md.insert("retry-after", MetadataValue::from(secs));
                }
                Err(status)
            }
        }
    }

    async fn admit(
        &self,
        md: &MetadataMap,
        ip: IpAddr,
        (need, permission): (Option<Scope>, permissions::Permission),
    ) -> Admission {
        let sessions = (self.config.sessions.as_ref(), &self.config.dashboard);
        let identity = caller::identify(&self.pool, &self.keys, sessions, md).await;
        let (row, dashboard, member) = match identity {
            Ok(identity) => (identity.row, identity.dashboard, identity.member),
            Err(e @ (CoreError::Unauthenticated | CoreError::KeyInvalid)) => {
                return self.refuse(ip, e);
            }
            Err(e) => return unaccounted(e),
        };
        let plan = row.plan;
        let caller = Caller {
            key_id: row.id,
            account_id: row.account_id,
            scopes: Scopes::from_names(&row.scopes),
            // The dashboard of a plan without API access pages at the Pro rate.
            rate_limit: match (&dashboard, self.config.rate_limit(plan)) {
                (Some(_), 0) => self.config.rate_limit(crate::accounts::Plan::Pro),
                (_, limit) => limit,
            },
            dashboard,
            member,
        };
        // Never the key itself: its id names it.
        tracing::debug!(key_id = %caller.key_id, account_id = %caller.account_id, "caller identified");
        let window = self.config.rate_window_secs;
        let (rate, over_limit) = match self
            .leases
            .admit(&self.pool, row.id, caller.rate_limit, window)
            .await
        {
            Ok(admitted) => admitted,
            Err(e) => return unaccounted(e),
        };
        // Usage is the API's: a page of the dashboard is not a request of the account's
        // session key, which the owner would otherwise see counted among their keys
        // (calls with the provider's cookie are the API's, and are counted).
        let charged = caller
            .dashboard
            .is_none()
            .then(|| (row.id, self.tally.request(row.id)));
        // The plan gates the API; the dashboard is every owner's, whatever the plan.
        let verdict = if !plan.has_api_access() && caller.dashboard.is_none() {
            Err(CoreError::PlanRequired)
        } else if caller.dashboard.as_ref().is_some_and(|d| !d.csrf_ok)
            && need.is_some_and(|scope| scope > Scope::Read)
        {
            Err(CoreError::CsrfFailed)
        } else if let Some(over) = over_limit {
            metrics::counter!("formsd_rate_limit_refusals_total", "limit" => "key").increment(1);
            Err(over)
        } else {
            match (need, caller.member.map(|m| m.role)) {
                (Some(scope), _) if !caller.scopes.allows(scope) => {
                    Err(CoreError::InsufficientScope(scope.as_str()))
                }
                (_, Some(role)) => match permission {
                    permissions::Permission::Member(least) if role < least => {
                        Err(CoreError::InsufficientRole(least.as_str()))
                    }
                    permissions::Permission::Operator => {
                        Err(CoreError::InsufficientRole("operator"))
                    }
                    _ => Ok(caller),
                },
                _ => Ok(caller),
            }
        };
        Admission {
            caller: verdict,
            rate: Some(rate),
            charged,
        }
    }

    /// Refuses an unauthenticated request, throttling the client IP.
    fn refuse(&self, ip: IpAddr, error: CoreError) -> Admission {
        let (rate, wait) = self.guard.failure(ip);
        let error = match wait {
            Some(retry_after) => {
                metrics::counter!("formsd_rate_limit_refusals_total", "limit" => "auth_failures")
                    .increment(1);
                CoreError::RateLimited { retry_after }
            }
            None => error,
        };
        Admission {
            caller: Err(error),
            rate: Some(rate),
            charged: None,
        }
    }
}

/// An admission that failed on the database before anything could be counted.
fn unaccounted(error: CoreError) -> Admission {
    Admission {
        caller: Err(error),
        rate: None,
        charged: None,
    }
}

fn decorate(md: &mut MetadataMap, request_id: &str, rate: Option<RateInfo>) {
    if let Ok(value) = MetadataValue::try_from(request_id) {
        md.insert(REQUEST_ID, value);
    }
    if let Some(rate) = rate {
        md.insert("x-ratelimit-limit", MetadataValue::from(rate.limit));
        md.insert("x-ratelimit-remaining", MetadataValue::from(rate.remaining));
        md.insert("x-ratelimit-reset", MetadataValue::from(rate.reset));
    }
}
