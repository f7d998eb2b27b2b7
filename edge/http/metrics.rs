//! Prometheus metrics of the process, on a listener of their own (`--metrics-addr`),
//! kept off the public REST port: requests by route and status with their durations,
//! gRPC calls by method and code with their durations, webhook attempts by outcome with
//! their durations and the delivery backlog, rate-limit refusals, responses created, the
//! database pool's connections.

use axum::Router;
use axum::routing::get;
use metrics_exporter_prometheus::{BuildError, PrometheusBuilder, PrometheusHandle};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// How often histogram samples are folded into their buckets. The recorder keeps each
/// sample until then (or until a scrape renders them): without this, a process that
/// nobody scrapes grows by every request it serves (metrics-rs/metrics#467).
const UPKEEP: Duration = Duration::from_secs(5);

/// Histogram buckets in seconds: from a fast request to a webhook time-out.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Installs the process-wide recorder; the metrics macros record nothing until then.
pub(crate) fn install() -> Result<PrometheusHandle, BuildError> {
    PrometheusBuilder::new()
        .set_buckets(BUCKETS)?
        .install_recorder()
}

/// Refreshes the gauges read at scrape time.
pub(crate) type Sample = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// Serves `GET /metrics` in the Prometheus text format until `stop`; `sample` refreshes
/// the gauges read at scrape time (the pool's connections, the delivery backlog).
/// Meanwhile the recorder's upkeep runs every `UPKEEP`, scraped or not.
pub(crate) async fn serve(
    listener: TcpListener,
    handle: PrometheusHandle,
    sample: Sample,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let scraped = handle.clone();
    let router = Router::new().route(
        "/metrics",
        get(move || {
            let (handle, sample) = (scraped.clone(), sample.clone());
            async move {
                sample().await;
                handle.render()
            }
        }),
    );
    let upkeep = async move {
        let mut tick = tokio::time::interval(UPKEEP);
        loop {
            tick.tick().await;
            handle.run_upkeep();
        }
    };
    let server = axum::serve(listener, router).with_graceful_shutdown(stop);
    tokio::select! {
        served = server.into_future() => served,
        never = upkeep => never,
    }
}
