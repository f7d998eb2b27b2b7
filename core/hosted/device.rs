//! What a browser submission says about its device, from the User-Agent header, parsed
//! by `woothee` (which classifies devices itself).

/// Device class, browser and operating system; `None` where the agent is unknown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Device {
    pub device_type: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
}

fn known(value: &str) -> Option<String> {
    (!value.is_empty() && value != "UNKNOWN").then(|| value.to_owned())
}

/// Parses a User-Agent header.
pub(crate) fn parse(user_agent: &str) -> Device {
    let Some(ua) = woothee::parser::Parser::new().parse(user_agent) else {
        return Device::default();
    };
    let device_type = match ua.category {
        "pc" => Some("desktop"),
        // woothee files tablets under smartphones; its OS names the iPad.
        "smartphone" if ua.os == "iPad" => Some("tablet"),
        "smartphone" | "mobilephone" => Some("mobile"),
        "appliance" => Some("appliance"),
        "crawler" => Some("bot"),
        _ => None,
    };
    Device {
        device_type: device_type.map(str::to_owned),
        browser: known(ua.name),
        os: known(ua.os),
    }
}

#[cfg(test)]
mod tests {
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
}
