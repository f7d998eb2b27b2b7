//! The SMTP relay notifications go through (`--smtp-url`, `--smtp-from`), with lettre
//! over tokio and rustls. URLs:
//! - `smtp://host[:port]` (default port 587): STARTTLS when the server offers it
//!   (opportunistic); `?starttls=required` refuses a server that does not offer it;
//! - `smtps://host[:port]` (default port 465): TLS from the first byte.
//!
//! Credentials come from the URL's userinfo (percent-encoded) or, for the password,
//! FORMS_SMTP_PASSWORD. They are sent only over TLS: credentials with opportunistic
//! STARTTLS are refused at start, since a server (or anyone on the path) that does not
//! offer STARTTLS would get the password in clear.

use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// Longest an SMTP conversation may wait on the server for one reply.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// Where and as whom to send, as configured.
#[derive(Clone)]
pub struct SmtpSettings {
    pub url: String,
    pub from: String,
    /// FORMS_SMTP_PASSWORD: used when the URL has a user but no password.
    pub password: Option<String>,
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL's userinfo or the password.
        f.debug_struct("SmtpSettings")
            .field("server", &redacted(&self.url))
            .field("from", &self.from)
            .finish()
    }
}

/// The URL without its userinfo and query, for logs.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}{}",
            u.scheme(),
            u.host_str().unwrap_or(""),
            u.port().map(|p| format!(":{p}")).unwrap_or_default()
        ),
        Err(_) => "(unparsable URL)".to_owned(),
    }
}

/// A configuration that cannot work; formsd refuses to start with it.
#[derive(Debug, thiserror::Error)]
#[error("SMTP settings: {0}")]
pub struct SmtpConfigError(String);

/// A failed send, as recorded with the attempt (no credentials in it).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SendError(pub String);

/// Sends mails through the configured relay.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl Mailer {
    pub fn new(settings: &SmtpSettings) -> Result<Self, SmtpConfigError> {
        let bad = |m: String| SmtpConfigError(m);
        let url = url::Url::parse(&settings.url)
            .map_err(|e| bad(format!("--smtp-url is not a URL ({e})")))?;
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("--smtp-url has no host".into()))?
            .trim_matches(['[', ']'])
            .to_owned();
        let mut required = false;
        for (name, value) in url.query_pairs() {
            match (name.as_ref(), value.as_ref()) {
                ("starttls", "required") => required = true,
                ("starttls", "opportunistic") => required = false,
                _ => {
                    return Err(bad(format!(
                        "unknown --smtp-url parameter {name}={value}; use starttls=required or starttls=opportunistic"
                    )));
                }
            }
        }
        let tls_parameters =
            || TlsParameters::new(host.clone()).map_err(|e| bad(format!("TLS for {host}: {e}")));
        let (tls, port, encrypted) = match url.scheme() {
            "smtp" if required => (Tls::Required(tls_parameters()?), 587, true),
            "smtp" => (Tls::Opportunistic(tls_parameters()?), 587, false),
            "smtps" => (Tls::Wrapper(tls_parameters()?), 465, true),
            other => {
                return Err(bad(format!(
                    "--smtp-url scheme {other}: is not smtp:// or smtps://"
                )));
            }
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host.as_str())
            .port(url.port().unwrap_or(port))
            .tls(tls)
            .timeout(Some(COMMAND_TIMEOUT));
        if let Some(credentials) = credentials(&url, settings.password.as_deref())? {
            if !encrypted {
                return Err(bad(
                    "credentials are sent only over TLS: use smtps:// or add ?starttls=required to --smtp-url".into(),
                ));
            }
            builder = builder.credentials(credentials);
        }
        let from = settings.from.parse::<Mailbox>().map_err(|e| {
            bad(format!(
                "--smtp-from {:?} is not an address ({e})",
                settings.from
            ))
        })?;
        Ok(Self {
            transport: builder.build(),
            from,
        })
    }

    /// Sends one multipart (text and HTML) mail to `to`; returns the server's answer.
    pub async fn send(
        &self,
        to: &str,
        subject: &str,
        text: String,
        html: String,
    ) -> Result<String, SendError> {
        self.send_replying(to, None, subject, text, html).await
    }

    /// Sends one multipart mail to `to` whose replies go to `reply_to` (the form's
    /// owner, for a mail to a respondent); returns the server's answer.
    pub async fn send_replying(
        &self,
        to: &str,
        reply_to: Option<&str>,
        subject: &str,
        text: String,
        html: String,
    ) -> Result<String, SendError> {
        let to = to
            .parse::<Mailbox>()
            .map_err(|e| SendError(format!("the recipient's address is not usable: {e}")))?;
        let mut builder = Message::builder().from(self.from.clone()).to(to);
        // An owner's address that does not parse only loses the Reply-To.
        if let Some(reply_to) = reply_to.and_then(|r| r.parse::<Mailbox>().ok()) {
            builder = builder.reply_to(reply_to);
        }
        let message = builder
            .subject(subject)
            .multipart(MultiPart::alternative_plain_html(text, html))
            .map_err(|e| SendError(format!("building the mail: {e}")))?;
        match self.transport.send(message).await {
            Ok(response) => Ok(format!(
                "{} {}",
                response.code(),
                response.message().collect::<Vec<_>>().join(" ")
            )),
            Err(e) => Err(SendError(describe(&e))),
        }
    }
}

/// The user and password of the URL (percent-decoded), the password possibly from the
/// environment instead.
fn credentials(
    url: &url::Url,
    env_password: Option<&str>,
) -> Result<Option<Credentials>, SmtpConfigError> {
    if url.username().is_empty() {
        return Ok(None);
    }
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .map(|s| s.into_owned())
            .map_err(|_| SmtpConfigError("--smtp-url userinfo is not UTF-8".into()))
    };
    let user = decode(url.username())?;
    let password = match url.password() {
        Some(p) => decode(p)?,
        None => env_password.map(str::to_owned).ok_or_else(|| {
            SmtpConfigError(
                "--smtp-url names a user but no password (in the URL or FORMS_SMTP_PASSWORD)"
                    .into(),
            )
        })?,
    };
    Ok(Some(Credentials::new(user, password)))
}

/// A transport error and its causes, without anything of the message.
fn describe(e: &lettre::transport::smtp::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let cause = s.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(url: &str) -> SmtpSettings {
        SmtpSettings {
            url: url.into(),
            from: "formsd <forms@example.com>".into(),
            password: None,
        }
    }

    #[test]
    fn urls_and_their_refusals() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        assert!(Mailer::new(&settings("smtp://127.0.0.1:2525")).is_ok());
        assert!(Mailer::new(&settings("smtp://mail.example.com?starttls=required")).is_ok());
        assert!(Mailer::new(&settings("smtps://u:p%40ss@mail.example.com")).is_ok());
        // Credentials over a connection that may stay in clear.
        assert!(Mailer::new(&settings("smtp://u:p@mail.example.com")).is_err());
        // A user without any password.
        assert!(Mailer::new(&settings("smtps://u@mail.example.com")).is_err());
        let with_env = SmtpSettings {
            password: Some("secret".into()),
            ..settings("smtps://u@mail.example.com")
        };
        assert!(Mailer::new(&with_env).is_ok());
        assert!(Mailer::new(&settings("http://mail.example.com")).is_err());
        assert!(Mailer::new(&settings("smtp://mail.example.com?tls=none")).is_err());
        let bad_from = SmtpSettings {
            from: "not an address".into(),
            ..settings("smtp://mail.example.com")
        };
        assert!(Mailer::new(&bad_from).is_err());
        let shown = format!(
            "{:?}",
            settings("smtps://user:hunter2@mail.example.com:465")
        );
        assert!(
            !shown.contains("hunter2") && !shown.contains("user"),
            "{shown}"
        );
    }
}
