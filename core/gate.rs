//! The gate every API call passes: authentication, plan, rate limit, usage accounting,
//! scope; and, on the way out, the metadata every reply carries (rate-limit figures,
//! request id, replay flag), errors included.

use crate::accounts::{Plan, Scope, Scopes, keys, store};
use crate::config::CoreConfig;
use crate::error::CoreError;
use chrono::NaiveDate;
use governor::{
    Quota, RateLimiter,
    clock::{Clock, DefaultClock},
    middleware::StateInformationMiddleware,
    state::keyed::DefaultKeyedStateStore,
};
use sqlx::PgPool;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::num::NonZeroU32;
use std::sync::Arc;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Request, Response, Status};
use uuid::Uuid;

/// Metadata the edge (or any client) sets to name the end client's IP address.
pub const CLIENT_IP: &str = "x-client-ip";
/// Metadata carrying the request id, both ways.
pub const REQUEST_ID: &str = "x-request-id";
/// Metadata carrying the idempotency key of a create.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// Who is calling, once authenticated.
#[derive(Debug, Clone)]
pub struct Caller {
    pub key_id: Uuid,
    pub account_id: Uuid,
    pub plan: Plan,
    pub scopes: Scopes,
    /// The caller's per-minute limit.
    pub rate_limit: u32,
}

/// What an operation gets besides its message.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub caller: Caller,
    pub request_id: String,
    pub idempotency_key: Option<String>,
}

/// Rate-limit figures of a reply.
#[derive(Debug, Clone, Copy)]
pub struct RateInfo {
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the window resets.
    pub reset: i64,
}

type IpLimiter =
    RateLimiter<IpAddr, DefaultKeyedStateStore<IpAddr>, DefaultClock, StateInformationMiddleware>;

/// Per-client-IP throttle of requests that fail authentication (key guessing).
pub struct AuthGuard {
    limiter: IpLimiter,
    per_minute: u32,
}

impl AuthGuard {
    fn new(per_minute: u32) -> Self {
        let per_minute = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Self {
            limiter: RateLimiter::keyed(Quota::per_minute(per_minute))
                .with_middleware::<StateInformationMiddleware>(),
            per_minute: per_minute.get(),
        }
    }

    /// Records a failed authentication from `ip`: the figures to show, or the wait in
    /// seconds when the IP has used up its allowance.
    fn failure(&self, ip: IpAddr) -> (RateInfo, Option<u64>) {
        let now = chrono::Utc::now().timestamp();
        let seconds_per_cell = 60.0 / f64::from(self.per_minute);
        match self.limiter.check_key(&ip) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let refill = f64::from(self.per_minute - remaining) * seconds_per_cell;
                let info = RateInfo {
                    limit: self.per_minute,
                    remaining,
                    reset: now + refill.ceil() as i64,
                };
                (info, None)
            }
            Err(not_until) => {
                let wait = not_until
                    .wait_time_from(DefaultClock::default().now())
                    .as_secs()
                    .max(1);
                let info = RateInfo {
                    limit: self.per_minute,
                    remaining: 0,
                    reset: now + wait as i64,
                };
                (info, Some(wait))
            }
        }
    }

    /// Forgets IPs whose allowance is full again (keeps memory bounded).
    pub fn retain_recent(&self) {
        self.limiter.retain_recent();
    }
}

/// The gate, shared by all services of the core.
#[derive(Clone)]
pub struct Gate {
    pool: PgPool,
    config: Arc<CoreConfig>,
    guard: Arc<AuthGuard>,
}

/// The outcome of admission: who, with which figures, and which usage row to charge
/// an error to.
struct Admission {
    caller: Result<Caller, CoreError>,
    rate: Option<RateInfo>,
    charged: Option<(Uuid, NaiveDate)>,
}

impl Gate {
    pub fn new(pool: PgPool, config: Arc<CoreConfig>) -> Self {
        let guard = Arc::new(AuthGuard::new(config.auth_failures_per_minute));
        Self {
            pool,
            config,
            guard,
        }
    }

    pub fn guard(&self) -> Arc<AuthGuard> {
        self.guard.clone()
    }

    /// Runs `op` for an authenticated caller holding `need` (None: any valid key).
    pub async fn call<T, R, F, Fut>(
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
    pub async fn call_replayable<T, R, F, Fut>(
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
        let ip = client_ip(&req, &self.config.trusted_proxies);
        let idempotency_key = metadata_str(req.metadata(), IDEMPOTENCY_KEY).map(str::to_owned);
        let admission = self.admit(req.metadata(), ip, need).await;
        let outcome = match admission.caller {
            Ok(caller) => {
                let ctx = Ctx {
                    caller,
                    request_id: request_id.clone(),
                    idempotency_key,
                };
                op(ctx, req.into_inner()).await
            }
            Err(e) => Err(e),
        };
        if outcome.is_err()
            && let Some((key_id, day)) = admission.charged
        {
            self.charge_error(key_id, day, &request_id).await;
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
                let retry_after = match &error {
                    CoreError::RateLimited { retry_after } => Some(*retry_after),
                    _ => None,
                };
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

    /// Who is calling: the API key's row, else (no key sent) the session cookie's
    /// account and its session key. Unauthenticated / KeyInvalid when neither works.
    async fn identify(&self, md: &MetadataMap) -> Result<store::KeyWithPlan, CoreError> {
        let Some(key) = presented_key(md) else {
            return self.identify_session(md).await;
        };
        let row = match keys::lookup_of(key) {
            Some(lookup) => store::find_key_by_lookup(&self.pool, lookup).await?,
            None => None,
        };
        let now = chrono::Utc::now();
        row.filter(|row| {
            keys::matches(key, &row.digest)
                && row.revoked_at.is_none()
                && row.expires_at.is_none_or(|at| at > now)
        })
        .ok_or(CoreError::KeyInvalid)
    }

    async fn identify_session(&self, md: &MetadataMap) -> Result<store::KeyWithPlan, CoreError> {
        let verifier = self
            .config
            .sessions
            .as_ref()
            .ok_or(CoreError::Unauthenticated)?;
        let token = md
            .get_all("cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|header| verifier.token(header))
            .ok_or(CoreError::Unauthenticated)?;
        let subject = verifier.subject(token)?;
        store::session_key(&self.pool, &subject)
            .await?
            .ok_or(CoreError::KeyInvalid)
    }

    async fn admit(&self, md: &MetadataMap, ip: IpAddr, need: Option<Scope>) -> Admission {
        let row = match self.identify(md).await {
            Ok(row) => row,
            Err(e @ (CoreError::Unauthenticated | CoreError::KeyInvalid)) => {
                return self.refuse(ip, e);
            }
            Err(e) => return unaccounted(e),
        };
        let now = chrono::Utc::now();
        let plan = row.plan;
        let caller = Caller {
            key_id: row.id,
            account_id: row.account_id,
            plan,
            scopes: Scopes::from_names(&row.scopes),
            rate_limit: self.config.rate_limit(plan),
        };
        let (count, window_start, day) = match self.count_request(row.id).await {
            Ok(counted) => counted,
            Err(e) => return unaccounted(e),
        };
        let reset = window_start + i64::from(self.config.rate_window_secs);
        let rate = RateInfo {
            limit: caller.rate_limit,
            remaining: caller.rate_limit.saturating_sub(count),
            reset,
        };
        let verdict = if !plan.has_api_access() {
            Err(CoreError::PlanRequired)
        } else if count > caller.rate_limit {
            let wait = (reset - now.timestamp()).max(1) as u64;
            Err(CoreError::RateLimited { retry_after: wait })
        } else {
            match need {
                Some(scope) if !caller.scopes.allows(scope) => {
                    Err(CoreError::InsufficientScope(scope.as_str()))
                }
                _ => Ok(caller),
            }
        };
        Admission {
            caller: verdict,
            rate: Some(rate),
            charged: Some((row.id, day)),
        }
    }

    /// Refuses an unauthenticated request, throttling the client IP.
    fn refuse(&self, ip: IpAddr, error: CoreError) -> Admission {
        let (rate, wait) = self.guard.failure(ip);
        let error = match wait {
            Some(retry_after) => CoreError::RateLimited { retry_after },
            None => error,
        };
        Admission {
            caller: Err(error),
            rate: Some(rate),
            charged: None,
        }
    }

    /// Counts one request in the key's current window and daily usage, in one statement
    /// on the database clock so that all instances agree on windows and days.
    async fn count_request(&self, key_id: Uuid) -> Result<(u32, i64, NaiveDate), CoreError> {
        let (count, window_start, day): (i32, i64, NaiveDate) = sqlx::query_as(
            "WITH now_w AS (
                 SELECT to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $2) * $2) AS ws,
                        (clock_timestamp() AT TIME ZONE 'UTC')::date AS day
             ), w AS (
                 INSERT INTO rate_windows (key_id, window_start, request_count)
                 SELECT $1, ws, 1 FROM now_w
                 ON CONFLICT (key_id) DO UPDATE SET
                     request_count = CASE WHEN rate_windows.window_start >= EXCLUDED.window_start
                                          THEN rate_windows.request_count + 1 ELSE 1 END,
                     window_start = GREATEST(rate_windows.window_start, EXCLUDED.window_start)
                 RETURNING request_count, window_start
             ), u AS (
                 INSERT INTO usage_daily (key_id, day, request_count)
                 SELECT $1, day, 1 FROM now_w
                 ON CONFLICT (key_id, day) DO UPDATE SET request_count = usage_daily.request_count + 1
             )
             SELECT w.request_count, extract(epoch FROM w.window_start)::bigint, (SELECT day FROM now_w)
               FROM w",
        )
        .bind(key_id)
        .bind(f64::from(self.config.rate_window_secs))
        .fetch_one(&self.pool)
        .await?;
        Ok((u32::try_from(count).unwrap_or(u32::MAX), window_start, day))
    }

    async fn charge_error(&self, key_id: Uuid, day: NaiveDate, request_id: &str) {
        let result = sqlx::query(
            "UPDATE usage_daily SET error_count = error_count + 1 WHERE key_id = $1 AND day = $2",
        )
        .bind(key_id)
        .bind(day)
        .execute(&self.pool)
        .await;
        if let Err(error) = result {
            tracing::warn!(request_id, %error, "could not count an error in usage");
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

fn metadata_str<'a>(md: &'a MetadataMap, name: &str) -> Option<&'a str> {
    md.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The API key of a call: `x-api-key`, else `authorization: Bearer <key>`. Without
/// one, the session cookie is tried (`Gate::identify_session`).
fn presented_key(md: &MetadataMap) -> Option<&str> {
    if let Some(key) = metadata_str(md, "x-api-key") {
        return Some(key);
    }
    let auth = metadata_str(md, "authorization")?;
    let (scheme, token) = auth.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The caller's request id if it sent a sane one, else a new UUID.
pub(crate) fn request_id(md: &MetadataMap) -> String {
    metadata_str(md, REQUEST_ID)
        .filter(|id| {
            id.len() <= 100
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        })
        .map_or_else(|| Uuid::new_v4().to_string(), str::to_owned)
}

/// The end client's address: the `x-client-ip` metadata when the call comes from a
/// trusted edge (in-process, or a peer listed in `trusted_proxies`), else the peer
/// address itself, so a direct gRPC client cannot pick its own address.
pub(crate) fn client_ip<T>(req: &Request<T>, trusted_proxies: &[IpAddr]) -> IpAddr {
    let peer = req.remote_addr().map(|addr| addr.ip());
    let trusted = peer.is_none_or(|ip| trusted_proxies.contains(&ip));
    let claimed = || metadata_str(req.metadata(), CLIENT_IP).and_then(|ip| ip.parse().ok());
    trusted
        .then(claimed)
        .flatten()
        .or(peer)
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}
