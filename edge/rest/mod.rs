//! The REST surface of SPEC.md under `/api/v1`, one module per resource. The routes
//! themselves are assembled, with the other edges', in `crate::router`.

pub(crate) mod audit;
pub(crate) mod docs;
pub(crate) mod erasures;
pub(crate) mod export;
pub(crate) mod filter;
pub(crate) mod form;
pub(crate) mod openapi;
pub(crate) mod pagination;
pub(crate) mod query;
pub(crate) mod responses;
pub(crate) mod summary;
pub(crate) mod theme;
pub(crate) mod usage;
pub(crate) mod webhooks;
