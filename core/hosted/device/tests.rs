//! The device class, browser and OS of real agents, the class rule's branches one by
//! one, the vendored JSON against its YAML, and (ignored: run by hand) the cost of a
//! parse and of the compiled rules.

use super::*;

#[test]
fn common_agents() {
    let desktop = parse(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
    );
    assert_eq!(desktop.device_type.as_deref(), Some("desktop"));
    assert_eq!(desktop.browser.as_deref(), Some("Chrome"));
    assert!(
        desktop
            .os
            .as_deref()
            .is_some_and(|os| os.starts_with("Windows"))
    );
    let phone = parse(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    );
    assert_eq!(phone.device_type.as_deref(), Some("mobile"));
    assert_eq!(phone.browser.as_deref(), Some("Safari"));
    let tablet = parse(
        "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    );
    assert_eq!(tablet.device_type.as_deref(), Some("tablet"));
    assert_eq!(parse(""), Device::default());
}

/// A real agent and what forms record of it: (agent, class, browser, OS).
type Case = (
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

const AGENTS: &[Case] = &[
    // Chrome on Windows
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        Some("desktop"),
        Some("Chrome"),
        Some("Windows"),
    ),
    // Safari on an iPhone
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
        Some("mobile"),
        Some("Safari"),
        Some("iOS"),
    ),
    // Safari on an iPad
    (
        "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
        Some("tablet"),
        Some("Safari"),
        Some("iOS"),
    ),
    // Chrome on an Android phone, with the model Chrome reports since 110 ("K")
    (
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
        Some("mobile"),
        Some("Chrome"),
        Some("Android"),
    ),
    // ...and on a Pixel, before 110
    (
        "Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Mobile Safari/537.36",
        Some("mobile"),
        Some("Chrome"),
        Some("Android"),
    ),
    // Chrome on an Android tablet (a Galaxy Tab S9): no "Mobile"
    (
        "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.122 Safari/537.36",
        Some("tablet"),
        Some("Chrome"),
        Some("Android"),
    ),
    // Firefox on Linux, and on Ubuntu
    (
        "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
        Some("desktop"),
        Some("Firefox"),
        Some("Linux"),
    ),
    (
        "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0",
        Some("desktop"),
        Some("Firefox"),
        Some("Ubuntu"),
    ),
    // Edge on Windows
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
        Some("desktop"),
        Some("Edge"),
        Some("Windows"),
    ),
    // Samsung Internet on a Galaxy phone, and on a Galaxy tablet
    (
        "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
        Some("mobile"),
        Some("Samsung Internet"),
        Some("Android"),
    ),
    (
        "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Safari/537.36",
        Some("tablet"),
        Some("Samsung Internet"),
        Some("Android"),
    ),
    // Safari and Firefox on a Mac
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
        Some("desktop"),
        Some("Safari"),
        Some("Mac OS X"),
    ),
    (
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0",
        Some("desktop"),
        Some("Firefox"),
        Some("Mac OS X"),
    ),
    // Chrome on a Chromebook
    (
        "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
        Some("desktop"),
        Some("Chrome"),
        Some("Chrome OS"),
    ),
    // Firefox on Android, phone and tablet (its own "Mobile" and "Tablet" words)
    (
        "Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0",
        Some("mobile"),
        Some("Firefox"),
        Some("Android"),
    ),
    (
        "Mozilla/5.0 (Android 14; Tablet; rv:127.0) Gecko/127.0 Firefox/127.0",
        Some("tablet"),
        Some("Firefox"),
        Some("Android"),
    ),
    // Chrome on an iPhone: another program than Chrome, named apart
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1",
        Some("mobile"),
        Some("Chrome Mobile iOS"),
        Some("iOS"),
    ),
    // A Kindle Fire's Silk: no "Mobile", and uap-core names the Kindle
    (
        "Mozilla/5.0 (Linux; Android 11; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/126.3.1 like Chrome/126.0.6478.153 Safari/537.36",
        Some("tablet"),
        Some("Amazon Silk"),
        Some("Android"),
    ),
    // Consoles, a TV and a headset
    (
        "Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15",
        Some("appliance"),
        Some("Safari"),
        None,
    ),
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edge/44.18363.8131",
        Some("appliance"),
        Some("Edge"),
        Some("Windows"),
    ),
    (
        "Mozilla/5.0 (Nintendo Switch; WifiWebAuthApplet) AppleWebKit/606.4 (KHTML, like Gecko) NF/6.0.1.15.4 NintendoBrowser/5.1.0.20393",
        Some("appliance"),
        None,
        None,
    ),
    (
        "Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.5) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.5 TV Safari/537.36",
        Some("appliance"),
        Some("Safari"),
        Some("Tizen"),
    ),
    (
        "Mozilla/5.0 (X11; Linux aarch64; Quest 3) AppleWebKit/537.36 (KHTML, like Gecko) OculusBrowser/33.0.0.3.49.605826539 SamsungBrowser/4.0 Chrome/126.0.6478.122 VR Safari/537.36",
        Some("appliance"),
        Some("Samsung Internet"),
        Some("Android"),
    ),
    // Googlebot, on a desktop's agent and on a smartphone's
    (
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        Some("bot"),
        Some("Googlebot"),
        None,
    ),
    (
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        Some("bot"),
        Some("Googlebot"),
        Some("Android"),
    ),
    // A feature phone's Opera Mini, and an old Nokia that uap-core's generic rules know
    (
        "Opera/9.80 (J2ME/MIDP; Opera Mini/4.2.14912/870; U; id) Presto/2.4.15",
        Some("mobile"),
        Some("Opera Mini"),
        None,
    ),
    (
        "Nokia6300/2.0 (05.00) Profile/MIDP-2.0 Configuration/CLDC-1.1",
        Some("mobile"),
        Some("Nokia Services (WAP) Browser"),
        None,
    ),
    // Programs, not devices: named, never classed
    ("curl/8.5.0", None, Some("curl"), None),
    // An empty header, and garbage
    ("", None, None, None),
    ("not a user agent at all ¯\\_(ツ)_/¯", None, None, None),
    ("\u{0}\u{7f}((((;;;;Mozilla/", None, None, None),
];

#[test]
fn real_agents() {
    let mut wrong = Vec::new();
    for &(agent, class, browser, os) in AGENTS {
        let device = parse(agent);
        let expected = Device {
            device_type: class.map(str::to_owned),
            browser: browser.map(str::to_owned),
            os: os.map(str::to_owned),
        };
        if device != expected {
            wrong.push(format!(
                "{agent}\n  got      {device:?}\n  expected {expected:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn class_branches() {
    // What the rules found, one branch at a time (agent, device, brand, OS).
    let cases = [
        ("x", "Spider", "Spider", "Android", Some("bot")),
        ("x", "Quest", "Meta", "Android", Some("appliance")),
        ("Xbox", OTHER, "", "Windows", Some("appliance")),
        ("x", "iPad", "Apple", "iOS", Some("tablet")),
        ("x", "Kindle Fire HD", "Amazon", "Android", Some("tablet")),
        (
            "Mozilla/5.0 (Linux; Android 14)",
            "K",
            "",
            "Android",
            Some("tablet"),
        ),
        (
            "Dalvik/2.1.0 (Linux; Android 14)",
            "K",
            "",
            "Android",
            Some("mobile"),
        ),
        ("x", "iPhone", "Apple", "iOS", Some("mobile")),
        (
            "x",
            "Generic Feature Phone",
            "Generic",
            OTHER,
            Some("mobile"),
        ),
        ("x", OTHER, "", "KaiOS", Some("mobile")),
        ("x", "Mac", "Apple", "Mac OS X", Some("desktop")),
        ("x", OTHER, "", "FreeBSD", Some("desktop")),
        ("x", OTHER, "", OTHER, None),
        ("x", "Mac", "Apple", OTHER, None),
    ];
    for (agent, device, brand, os, expected) in cases {
        assert_eq!(
            class(agent, device, brand, os),
            expected,
            "{agent} {device} {brand} {os}"
        );
    }
}

#[test]
fn browser_names() {
    assert_eq!(browser_name("Mobile Safari"), "Safari");
    assert_eq!(browser_name("Chrome Mobile"), "Chrome");
    assert_eq!(browser_name("Firefox Mobile"), "Firefox");
    assert_eq!(browser_name("Chrome Mobile iOS"), "Chrome Mobile iOS");
    assert_eq!(
        browser_name("Mobile Safari UI/WKWebView"),
        "Mobile Safari UI/WKWebView"
    );
    assert_eq!(browser_name("Firefox"), "Firefox");
}

/// The embedded JSON holds as many rules as the vendored YAML (one `- regex:` line
/// each): `scripts/uap-regexes.sh` was run after the YAML last changed.
#[test]
fn json_made_from_the_yaml() {
    let yaml = include_str!("../uap/regexes.yaml");
    let in_yaml = yaml
        .lines()
        .filter(|line| line.trim_start().starts_with("- regex:"))
        .count();
    let rules: Regexes<'_> = serde_json::from_str(RULES).expect("the JSON reads");
    let in_json =
        rules.user_agent_parsers.len() + rules.os_parsers.len() + rules.device_parsers.len();
    assert_eq!(in_json, in_yaml);
    assert!(super::rules().is_some(), "the rules compile");
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// The cost of the rules: the memory they take compiled and the time of one parse
/// (median of 10,000, over the agents above). Run alone, as the memory is the
/// process's: `cargo test -p forms --lib device::tests::measure -- --ignored --nocapture`.
#[test]
#[ignore = "prints figures; run by hand"]
fn measure() {
    let before = rss_kib();
    let started = std::time::Instant::now();
    let compiled = compile().expect("the rules compile");
    let took = started.elapsed();
    let grown = rss_kib().saturating_sub(before);
    drop(compiled);
    parse("");
    let mut times = Vec::with_capacity(10_000);
    for (agent, ..) in AGENTS.iter().cycle().take(10_000) {
        let started = std::time::Instant::now();
        std::hint::black_box(parse(std::hint::black_box(agent)));
        times.push(started.elapsed());
    }
    times.sort();
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "{profile}: compiling the rules took {took:?} and {} MiB more RSS ({grown} KiB); one parse {:?} (median of 10,000), {:?} at the 99th percentile",
        grown / 1024,
        times[5_000],
        times[9_900]
    );
}

#[tokio::test]
async fn a_request_reads_an_agent_as_the_rules_do() {
    let agent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1";
    let device = read(agent).await;
    assert_eq!(device, parse(agent));
    assert_eq!(device.device_type.as_deref(), Some("mobile"));
}
