//! End-to-end tests of `formsd`: the real binary on real PostgreSQL, driven over HTTP
//! (the REST edge of SPEC.md) and gRPC (the core). One test binary; one module per area.
//!
//! Database: FORMS_TEST_DATABASE_URL, else DATABASE_URL, else a private cluster under
//! `target/test-pg` (see `harness::admin_url`). Every test gets its own database, cloned
//! from a template migrated once, so tests run in parallel.

// Test code: a failed unwrap is a failed test, and its helpers are `pub` to each other.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod fixtures;
#[allow(dead_code)] // a shared harness: not every suite uses every helper
mod harness;

mod archive;
mod audit;
mod auth;
mod backlog_claims;
mod binary;
mod book;
mod browser;
mod clients;
mod connections;
mod dashboard;
mod dashboard_browser;
mod dashboard_build;
mod dashboard_builder;
mod dashboard_deliveries;
mod dashboard_inbox;
mod dashboard_key_labels;
mod dashboard_keys;
mod dashboard_kinds;
mod dashboard_languages;
mod dashboard_logic;
mod dashboard_nav;
mod dashboard_notify;
mod dashboard_results;
#[allow(dead_code)] // shared by the dashboard suites: not every suite uses every helper
mod dashboard_session;
mod dashboard_sign_in;
mod dashboard_summary;
mod dashboard_usage;
mod dashboard_webhooks;
mod data_rights;
mod endpoint;
mod endpoint_browser;
mod endpoint_logic;
mod endpoint_snippet;
mod errors;
mod export;
mod export_xlsx;
mod failover;
mod field_kinds;
mod filters;
mod forms;
mod fuzz;
mod grpc;
mod hosted;
mod hosted_kinds;
mod hosted_pages;
mod hosted_steps;
mod hosted_thumb;
mod idempotency;
mod identity_issuers;
mod isolation;
mod judged_on_the_current_form;
mod kept_connections;
mod kept_files;
mod languages;
mod limits;
mod logic;
mod member_lifecycle;
mod members;
mod nothing_left_behind;
mod notifications;
mod openapi;
mod outage;
mod partial;
mod partial_bounds;
mod pow;
mod proxy;
mod replicas;
mod replication;
mod respond;
mod responses;
mod restarted_replica;
mod retention;
mod roles;
mod roles_pages;
mod schemathesis;
mod sessions;
mod sign_in_abuse;
mod smtp_sink;
mod stale_replica;
mod standby;
mod storm;
mod summary;
mod themes;
mod time_ordered_ids;
mod tls;
mod tokens;
mod uploads;
mod usage;
mod webhooks;
