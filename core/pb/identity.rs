//! Issuer names that both halves of the service know: the edge words them on the
//! account page, the core stores them with each linked identity.

/// The issuer of the provider cookie's identities when no `--session-issuer` is set:
/// a fixed name, never a URL, so that no OpenID provider's issuer can be it.
pub const PROVIDER_COOKIE: &str = "provider-cookie";
