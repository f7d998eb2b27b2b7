//! What a browser submission says about its device, from the User-Agent header: the
//! uap-core rules (vendored in `uap/`, whose README says which version and how to update
//! it), read by `ua-parser`, name the browser, the operating system and the device, and
//! [`class`] sorts the device into desktop, mobile, tablet, appliance or bot.

use std::sync::OnceLock;

use ua_parser::{Extractor, Regexes};

/// Device class, browser and operating system; `None` where the agent is unknown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Device {
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
}

/// uap-core's rules as JSON, made from `uap/regexes.yaml` by `scripts/uap-regexes.sh`.
const RULES: &str = include_str!("uap/regexes.json");

/// uap-core's name for "none of the rules matched".
const OTHER: &str = "Other";

/// The brands of the device rules kept: those whose devices [`class`] reads. The other
/// device rules (547 of 628, each naming one maker's models) are left out: compiled with
/// them the rules took 25 MB in a release build, without them 13 MB (with mimalloc, as
/// formsd runs, 32 and 17 MB), nearly all of it the browser and OS rules, which name what
/// is stored. Handsets stay mobile all the same, by their Android, iOS or other phone
/// system, by Android's model rules (`Generic_Android`) or by uap-core's generic
/// smartphone and feature phone rules; an old feature phone that only its maker's rule
/// recognised is unknown.
const DEVICE_BRANDS: &[&str] = &[
    "Spider",
    "Apple",
    "Amazon",
    "Generic",
    "Generic_Android",
    "Generic_Android_Tablet",
    "Generic_Inettv",
    "Meta",
    "Microsoft",
    "HP",
    "BlackBerry",
];

/// The rules compiled, once for the process, by the first agent read (40 ms in a
/// release build, 0.7 s in a debug one); `None` if they do not compile (logged then), and
/// every agent is unknown.
static EXTRACTOR: OnceLock<Option<Extractor<'static>>> = OnceLock::new();

fn rules() -> Option<&'static Extractor<'static>> {
    EXTRACTOR
        .get_or_init(|| {
            compile()
                .inspect_err(|error| {
                    tracing::error!(%error, "the User-Agent rules do not compile: devices are not recorded");
                })
                .ok()
        })
        .as_ref()
}

/// Reads a User-Agent header as a request does: the first one compiles the rules on a
/// thread for blocking work, not on the request's (which would stall every request that
/// thread serves meanwhile).
pub(crate) async fn read(user_agent: &str) -> Device {
    if EXTRACTOR.get().is_none() {
        // A panic there would only leave the rules to the `parse` below.
        let _ = tokio::task::spawn_blocking(rules).await;
    }
    parse(user_agent)
}

fn compile() -> Result<Extractor<'static>, String> {
    let mut rules: Regexes<'static> = serde_json::from_str(RULES).map_err(|e| e.to_string())?;
    rules.device_parsers.retain(|rule| {
        rule.brand_replacement
            .as_deref()
            .is_some_and(|brand| DEVICE_BRANDS.contains(&brand))
    });
    Extractor::try_from(rules).map_err(|e| e.to_string())
}

fn known(value: &str) -> Option<String> {
    (!value.is_empty() && value != OTHER).then(|| value.to_owned())
}

/// Parses a User-Agent header.
pub(crate) fn parse(user_agent: &str) -> Device {
    let Some(extractor) = rules() else {
        return Device::default();
    };
    let (browser, os, device) = extractor.extract(user_agent);
    let os = os.map(|os| os.os);
    let os = os.as_deref().unwrap_or(OTHER);
    let family = device.as_ref().map_or(OTHER, |d| &*d.device);
    let brand = device
        .as_ref()
        .and_then(|d| d.brand.as_deref())
        .unwrap_or("");
    Device {
        device_type: class(user_agent, family, brand, os).map(str::to_owned),
        browser: browser.and_then(|b| known(browser_name(&b.family))),
        os: known(os),
    }
}

/// One name for a browser on every device: uap-core names some twice, by the device they
/// run on ("Mobile Safari", "Chrome Mobile", "Firefox Mobile", "Edge Mobile"), which the
/// device class says already; with one name a filter or a share counts a browser whole,
/// as it did before (woothee, the parser before, named them so). Other programs keep
/// their names:
/// "Chrome Mobile iOS" (Chrome on WebKit), "Chrome Mobile WebView" and "Mobile Safari
/// UI/WKWebView" (pages inside an app).
fn browser_name(family: &str) -> &str {
    match family {
        "Mobile Safari" => "Safari",
        _ => family.strip_suffix(" Mobile").unwrap_or(family),
    }
}

/// Words in an agent that make it a console, a TV or a TV stick.
const APPLIANCE_WORDS: &[&str] = &[
    "PlayStation",
    "PLAYSTATION",
    "Xbox",
    "Nintendo",
    "SMART-TV",
    "SmartTV",
    "HbbTV",
    "NetCast",
    "Web0S",
    "CrKey",
    "GoogleTV",
    "AppleTV",
    "Roku/",
];

/// Tablets that uap-core names besides the iPad, Kindles and its generic tablet.
const TABLETS: &[&str] = &[
    "iPad",
    "Generic Tablet",
    "HP TouchPad",
    "BlackBerry Playbook",
    "Microsoft Surface RT",
];

/// uap-core's names of phone systems.
const PHONE_OS: &[&str] = &[
    "iOS",
    "Android",
    "Windows Phone",
    "Windows Mobile",
    "BlackBerry OS",
    "Symbian OS",
    "KaiOS",
    "Firefox OS",
];

/// uap-core's names of desktop systems.
const DESKTOP_OS: &[&str] = &[
    "Windows",
    "Mac OS X",
    "Mac OS",
    "Chrome OS",
    "Linux",
    "Ubuntu",
    "Kubuntu",
    "Lubuntu",
    "Linux Mint",
    "Debian",
    "Fedora",
    "Red Hat",
    "CentOS",
    "SUSE",
    "openSUSE",
    "Arch Linux",
    "Gentoo",
    "Slackware",
    "Mandriva",
    "Mageia",
    "FreeBSD",
    "OpenBSD",
    "NetBSD",
    "Solaris",
];

/// The class of a device, from the agent and what the rules found in it (device family
/// and brand, OS family, [`OTHER`] where none): uap-core names devices but does not class
/// them. The first branch that holds wins; `None` where none does (curl, a script, an
/// empty header).
fn class(agent: &str, device: &str, brand: &str, os: &str) -> Option<&'static str> {
    // Crawlers, link previews and monitors: uap-core's device rules file them all as
    // "Spider", Googlebot's smartphone agent too (which says Android and Mobile).
    if device == "Spider" {
        return Some("bot");
    }
    // Consoles, TVs and headsets come before tablets and desktops: an Xbox says Windows
    // NT, an Android TV or a Quest says Android without "Mobile". uap-core names few of
    // them as devices (no Xbox since its Edge, no Switch), so the agent's words count.
    if device == "Quest"
        || brand == "Generic_Inettv"
        || APPLIANCE_WORDS.iter().any(|word| agent.contains(word))
    {
        return Some("appliance");
    }
    // Tablets: those uap-core names (its generic tablet covers the "Tablet" agents of
    // Firefox and Opera), and an Android browser that leaves "Mobile" out, which is
    // Google's convention for tablets (uap-core's Generic_Android_Tablet says the same).
    // Android apps' own HTTP clients (Dalvik, not "Mozilla/") follow no such convention.
    if TABLETS.contains(&device)
        || device.starts_with("Kindle")
        || brand == "Generic_Android_Tablet"
        || os == "BlackBerry Tablet OS"
        || (os == "Android" && agent.starts_with("Mozilla/") && !agent.contains("Mobile"))
    {
        return Some("tablet");
    }
    // Phones: any other device uap-core names is a handset (iPhone, iPod, an Android
    // model, its generic smartphone or feature phone), except "Mac", its name for every
    // Macintosh; and where no device rule matched, a phone system says so.
    if (device != OTHER && device != "Mac") || PHONE_OS.contains(&os) {
        return Some("mobile");
    }
    // Desktops: a desktop system on no device, or on a Mac. An iPad asking for desktop
    // pages says Macintosh, and counts here.
    if DESKTOP_OS.contains(&os) {
        return Some("desktop");
    }
    None
}

#[cfg(test)]
mod tests;
