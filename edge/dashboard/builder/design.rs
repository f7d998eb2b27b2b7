//! The form's design (its theme): the fold on the builder page with the accent and
//! background colours, the typeface, the corners and the appearance, and its post. The
//! core checks the colours' contrast; a colour it refuses comes back beside its own
//! input, with the colour to choose instead, and what the owner chose kept. The
//! preview beside the questions follows the inputs (`assets/builder.js`).

use super::{View, form_id, update};
use crate::dashboard::layout::csrf;
use crate::dashboard::owner::{Owner, Posted, see_other};
use crate::http::error::reason_of;
use crate::http::site::Origin;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::Response;
use forms::pb::{self, ErrorReason};
use maud::{Markup, html};
use serde::Deserialize;

/// The colours and corners of the service's own look: what the inputs show for a
/// form without a theme.
const OUR_ACCENT: &str = "#2f6fed";
const OUR_BACKGROUND: &str = "#ffffff";
const OUR_RADIUS: i32 = 8;

/// The typefaces, by the core's names, with what the owner reads.
const FONTS: &[(&str, &str)] = &[
    ("system", "The device's own (default)"),
    ("humanist", "Humanist sans-serif"),
    ("serif", "Serif"),
    ("rounded", "Rounded"),
    ("mono", "Monospace"),
];

const APPEARANCES: &[(&str, &str)] = &[
    ("light", "Light"),
    ("dark", "Dark"),
    ("auto", "As the visitor's device is set (light or dark)"),
];

/// A refusal of the core about one property of the theme: which (`accent`,
/// `background`, …) and what to do.
pub(crate) struct Problem<'a> {
    pub(crate) property: &'a str,
    pub(crate) text: &'a str,
}

/// The core's `theme.<property>: <text>` message as a problem beside its input.
pub(crate) fn problem_of(message: &str) -> Option<Problem<'_>> {
    let (property, text) = message.strip_prefix("theme.")?.split_once(": ")?;
    Some(Problem { property, text })
}

/// The core's words start in lower case, after the property's name; alone, a sentence.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn select(name: &str, id: &str, options: &[(&str, &str)], chosen: &str) -> Markup {
    html! {
        select id=(id) name=(name) {
            @for (value, label) in options {
                option value=(value) selected[*value == chosen] { (label) }
            }
        }
    }
}

pub(super) fn section(owner: &Owner, form: &pb::Form, base: &str, view: &View) -> Markup {
    let intro = "Your brand on the form's page.";
    let action = format!("{base}/design");
    let logo = super::logo::section(owner, form, base);
    fold(
        owner,
        form.theme.as_ref(),
        &action,
        view.design.as_ref(),
        intro,
        logo,
    )
}

/// The design fold (a form's, or the account's default): its inputs, a refused
/// property's problem beside its input, and `extra` under them (a form's logo).
pub(crate) fn fold(
    owner: &Owner,
    theme: Option<&pb::FormTheme>,
    action: &str,
    problem: Option<&Problem<'_>>,
    intro: &str,
    extra: Markup,
) -> Markup {
    let reset = theme.is_some();
    let theme = theme.cloned().unwrap_or_default();
    let error = |property: &str| {
        problem
            .filter(|p| p.property == property)
            .map(|p| capitalised(p.text))
    };
    let described = |property: &str, hint: &str| match error(property) {
        Some(_) => format!("design-{property}-error {hint}"),
        None => hint.to_owned(),
    };
    let accent = theme.accent.as_deref().unwrap_or(OUR_ACCENT);
    let background = theme.background.as_deref().unwrap_or(OUR_BACKGROUND);
    let radius = theme.radius.unwrap_or(OUR_RADIUS);
    html! {
        details class="fold" id="design" open[problem.is_some()] {
            summary { h2 { "Design" } }
            form method="post" action=(action) data-design {
                (csrf(&owner.session))
                p class="muted" id="design-hint" {
                    (intro) " Colours must keep text readable (WCAG AA, 4.5:1): a colour that is too light or too dark is refused with one that works."
                }
                label for="design-accent" { "Accent " span class="muted" { "(buttons and chosen options, under white text)" } }
                input id="design-accent" name="accent" type="color" value=(accent)
                    aria-invalid=[error("accent").map(|_| "true")]
                    aria-describedby=(described("accent", "design-hint"));
                @if let Some(text) = error("accent") { p class="error" id="design-accent-error" { (text) } }
                label for="design-background" { "Background " span class="muted" { "(behind the questions)" } }
                input id="design-background" name="background" type="color" value=(background)
                    aria-invalid=[error("background").map(|_| "true")]
                    aria-describedby=(described("background", "design-hint"));
                @if let Some(text) = error("background") { p class="error" id="design-background-error" { (text) } }
                label for="design-appearance" { "Appearance" }
                (select("appearance", "design-appearance", APPEARANCES, theme.appearance.as_deref().unwrap_or("light")))
                @if let Some(text) = error("appearance") { p class="error" { (text) } }
                label for="design-font" { "Typeface " span class="muted" { "(the visitor's own fonts: nothing is downloaded)" } }
                (select("font", "design-font", FONTS, theme.font.as_deref().unwrap_or("system")))
                label for="design-radius" { "Corner radius in pixels " span class="muted" { "(0 to 24)" } }
                input id="design-radius" name="radius" type="number" min="0" max="24" step="1" inputmode="numeric" value=(radius)
                    aria-invalid=[error("radius").map(|_| "true")];
                @if let Some(text) = error("radius") { p class="error" { (text) } }
                div class="actions" {
                    button type="submit" { "Save design" }
                    @if reset {
                        button type="submit" class="secondary" name="reset" value="1" { "Back to our look" }
                    }
                }
            }
            (extra)
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct DesignForm {
    #[serde(default)]
    accent: String,
    #[serde(default)]
    background: String,
    #[serde(default)]
    font: String,
    #[serde(default)]
    radius: String,
    #[serde(default)]
    appearance: String,
    pub(crate) reset: Option<String>,
}

/// The posted design as a theme; an empty box leaves its property unset. The values
/// are the core's to judge, except a radius that is no number at all.
pub(crate) fn theme_from(posted: &DesignForm) -> Result<pb::FormTheme, &'static str> {
    let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    let radius = match posted.radius.trim() {
        "" => None,
        r => Some(
            r.parse::<i32>()
                .map_err(|_| "Corner radius: write a whole number from 0 to 24.")?,
        ),
    };
    Ok(pb::FormTheme {
        accent: text(&posted.accent),
        background: text(&posted.background),
        font: text(&posted.font),
        radius,
        appearance: text(&posted.appearance),
        logo: None,
    })
}

/// `POST /app/forms/{id}/design`
pub(crate) async fn design(
    owner: Owner,
    origin: Origin,
    Path(id): Path<String>,
    Posted { csrf, form: posted }: Posted<DesignForm>,
) -> Response {
    let Some(id) = form_id(&id) else {
        return owner.not_found();
    };
    let theme = if posted.reset.is_some() {
        None
    } else {
        match theme_from(&posted) {
            Ok(theme) => Some(theme),
            Err(problem) => return super::refused(&owner, &id, &origin, None, problem).await,
        }
    };
    let change = pb::Form {
        id: id.clone(),
        theme: theme.clone(),
        ..Default::default()
    };
    match update(&owner, &csrf, change, &["theme"]).await {
        Ok(_) => see_other(&format!("/app/forms/{id}?done=design#design")),
        Err(status) if matches!(reason_of(&status), Some(ErrorReason::ValidationError)) => {
            let Some(problem) = problem_of(status.message()) else {
                let problem = super::words::humane(status.message());
                return super::refused(&owner, &id, &origin, None, &problem).await;
            };
            // The page again, with what was chosen and the problem beside its input.
            let mut form = match owner.form(&id).await {
                Ok(form) => form,
                Err(response) => return response,
            };
            let logo = form.theme.take().and_then(|t| t.logo);
            form.theme = theme.map(|t| pb::FormTheme { logo, ..t });
            let view = View {
                design: Some(problem),
                problem: Some("Nothing was saved: the design below needs a change."),
                ..View::default()
            };
            let mut response = owner.page(
                &form.title,
                crate::dashboard::layout::Section::Forms,
                super::view::render(&owner, &form, &origin, &view),
            );
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
        Err(status) => owner.failure(&status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_its_property() {
        let problem = problem_of("theme.accent: the accent #ffd400 is too light: try #8a6d00")
            .expect("a theme problem");
        assert_eq!(problem.property, "accent");
        assert_eq!(problem.text, "the accent #ffd400 is too light: try #8a6d00");
        assert!(problem_of("settings.closes_at: must be").is_none());
    }
}
