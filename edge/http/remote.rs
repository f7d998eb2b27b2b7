//! An edge-only process's way to its core (`--role edge`): the endpoint at `--core-url`
//! (over TLS for an https:// URL, trusting the system's roots and `--core-ca`), and the
//! proof it shows with every call (`--edge-secret`), without which the core does not
//! believe the visitors' addresses it forwards.

use crate::app::Error;
use crate::config::ServeArgs;
use crate::http::state::{Transport, TransportError};
use std::time::Duration;
use tower::{BoxError, ServiceExt};

/// The transport to the core at `--core-url`, connected on first use.
pub(crate) fn transport(args: &ServeArgs) -> Result<Transport, Error> {
    let channel = endpoint(args)?
        .connect_timeout(Duration::from_secs(5))
        .connect_lazy();
    let proof = proof(args.edge_secret.as_deref())?;
    let channel = channel.map_request(move |mut req: http::Request<tonic::body::Body>| {
        if let Some(proof) = &proof {
            req.headers_mut()
                .insert(forms::pb::metadata::EDGE_SECRET, proof.clone());
        }
        req
    });
    Ok(Transport::new(
        channel.map_err(|e| TransportError(BoxError::from(e))),
    ))
}

/// What the edge shows its core with every call (`--edge-secret`), marked sensitive so
/// that no trace prints it.
fn proof(secret: Option<&str>) -> Result<Option<http::HeaderValue>, Error> {
    let Some(secret) = secret else {
        return Ok(None);
    };
    let mut value = http::HeaderValue::from_str(secret)
        .map_err(|_| "--edge-secret must be visible ASCII characters")?;
    value.set_sensitive(true);
    Ok(Some(value))
}

/// The core's endpoint: over TLS for an https:// URL, trusting the system's roots and
/// those of `--core-ca`.
fn endpoint(args: &ServeArgs) -> Result<tonic::transport::Endpoint, Error> {
    let endpoint = tonic::transport::Endpoint::from_shared(args.core_url.clone())?;
    if !args.core_url.starts_with("https://") {
        return Ok(endpoint);
    }
    let mut tls = tonic::transport::ClientTlsConfig::new().with_native_roots();
    if let Some(path) = &args.core_ca {
        let pem = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        tls = tls.ca_certificate(tonic::transport::Certificate::from_pem(pem));
    }
    Ok(endpoint.tls_config(tls)?)
}
