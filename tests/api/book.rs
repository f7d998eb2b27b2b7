//! The book under `docs/` stays true to the code and to itself: its configuration table
//! is held to `formsd serve --help` of the built binary (every flag there has a row with
//! its environment variable, every row names a flag there), and every relative link
//! between its pages (and from the README into it) reaches a file, and its `#anchor` a
//! heading of that file. `.ci/run` also builds the book with mdbook.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const CONFIGURATION: &str = "docs/src/running/configuration.md";

// ---------------------------------------------------------------------------------------
// The configuration table against the binary
// ---------------------------------------------------------------------------------------

/// Each long flag of `formsd serve --help` with the environment variable it reads.
/// The help is asked with an empty environment, so that no variable set here changes it.
fn serve_flags() -> BTreeMap<String, Option<String>> {
    let out = Command::new(env!("CARGO_BIN_EXE_formsd"))
        .args(["serve", "--help"])
        .env_clear()
        .output()
        .expect("running formsd serve --help");
    assert!(out.status.success(), "formsd serve --help failed: {out:?}");
    let help = String::from_utf8(out.stdout).expect("help in UTF-8");
    let mut flags = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in help.lines() {
        let trimmed = line.trim_start();
        // An option starts a line of its own, indented as clap indents options
        // (`  -h, --help`, `      --role <ROLE>`); its description lines are deeper.
        let indent = line.len() - trimmed.len();
        let flag = if indent <= 6 {
            trimmed
                .strip_prefix("--")
                .or_else(|| trimmed.split_once(", --").map(|(_, rest)| rest))
        } else {
            None
        };
        if let Some(rest) = flag {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            current = Some(format!("--{name}"));
            flags.insert(format!("--{name}"), None);
        } else if let (Some(flag), Some((_, env))) = (&current, trimmed.split_once("[env: ")) {
            let name: String = env
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            flags.insert(flag.clone(), Some(name));
        }
    }
    flags.remove("--help");
    assert!(
        flags.len() > 40,
        "the help of formsd serve was not parsed: {flags:?}"
    );
    flags
}

/// A table row: its flag (None for a variable without a flag) and its variable.
type Row = (Option<String>, Option<String>);

/// The rows of the book's configuration table: `| flag | variable | default | meaning |`.
fn documented_rows(page: &str) -> Vec<Row> {
    let cell = |s: &str| {
        let s = s.trim().trim_matches('`').trim();
        (!s.is_empty()).then(|| s.to_string())
    };
    page.lines()
        .filter(|l| l.starts_with("| `--") || l.starts_with("| | `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').collect();
            (cell(cells[1]), cell(cells[2]))
        })
        .collect()
}

/// What differs between the binary's flags and the table, in words.
fn configuration_mismatches(flags: &BTreeMap<String, Option<String>>, rows: &[Row]) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut documented = BTreeMap::new();
    for (flag, env) in rows {
        match flag {
            Some(flag) => {
                if documented.insert(flag.clone(), env.clone()).is_some() {
                    wrong.push(format!("{flag} has two rows"));
                }
            }
            None => {
                // A variable without a flag must be read somewhere, and by no flag.
                let Some(env) = env else {
                    wrong.push("a row names neither a flag nor a variable".into());
                    continue;
                };
                if flags.values().any(|v| v.as_deref() == Some(env.as_str())) {
                    wrong.push(format!("{env} is a flag's variable: name the flag"));
                }
                if !source_mentions(env) {
                    wrong.push(format!(
                        "{env} is documented but read nowhere in core/ or edge/"
                    ));
                }
            }
        }
    }
    for (flag, env) in flags {
        match documented.get(flag) {
            None => wrong.push(format!("{flag} (formsd serve --help) has no row")),
            Some(doc) if doc != env => wrong.push(format!(
                "{flag}: the table says variable {doc:?}, the binary reads {env:?}"
            )),
            Some(_) => {}
        }
    }
    for flag in documented.keys() {
        if !flags.contains_key(flag) {
            wrong.push(format!(
                "{flag} is documented, but formsd serve has no such flag"
            ));
        }
    }
    wrong
}

/// Whether any Rust file under core/ or edge/ names `word`.
fn source_mentions(word: &str) -> bool {
    let mut files = Vec::new();
    for dir in ["core", "edge"] {
        walk(&Path::new(ROOT).join(dir), "rs", &mut files);
    }
    files
        .iter()
        .any(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains(word)))
}

#[test]
fn the_configuration_table_documents_every_flag_of_serve_and_no_other() {
    let page = std::fs::read_to_string(Path::new(ROOT).join(CONFIGURATION)).expect("the page");
    let wrong = configuration_mismatches(&serve_flags(), &documented_rows(&page));
    assert!(
        wrong.is_empty(),
        "{CONFIGURATION} and `formsd serve --help` differ:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_configuration_check_sees_a_missing_row_a_stray_row_and_a_wrong_variable() {
    let flags: BTreeMap<String, Option<String>> = [
        (
            "--http-addr".to_string(),
            Some("FORMS_HTTP_ADDR".to_string()),
        ),
        ("--role".to_string(), Some("FORMS_ROLE".to_string())),
    ]
    .into();
    let page = "| `--http-addr` | `FORMS_HTTP_ADDR` | x | y |\n\
                | `--gone` | `FORMS_GONE` | x | y |\n\
                | | `FORMS_NOWHERE_AT_ALL` | x | y |\n";
    let wrong = configuration_mismatches(&flags, &documented_rows(page));
    assert_eq!(wrong.len(), 3, "{wrong:?}");
    let role = "| `--role` | `FORMS_WRONG` | x | y |\n| `--http-addr` | `FORMS_HTTP_ADDR` | | |";
    let wrong = configuration_mismatches(&flags, &documented_rows(role));
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(wrong[0].contains("FORMS_WRONG"), "{wrong:?}");
}

// ---------------------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------------------

/// Every file under `dir` (links followed, as mdbook reads them) ending in `.ext`.
fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

/// The text of a page without its fenced code blocks and inline code, where a `](…)`
/// is not a link.
fn prose(page: &str) -> String {
    let mut text = String::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Outside backticks only: split on them and keep the even pieces.
        for (i, piece) in line.split('`').enumerate() {
            if i % 2 == 0 {
                text.push_str(piece);
            }
        }
        text.push('\n');
    }
    text
}

/// The targets of a page's inline links `[text](target)`.
fn links(page: &str) -> Vec<String> {
    let text = prose(page);
    let mut found = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            found.push(rest[..end].trim().to_string());
            rest = &rest[end..];
        }
    }
    found
}

/// A heading's anchor as mdbook makes it: lower case; letters, digits, `_` and `-`
/// kept, white space made `-`, anything else dropped; markup reduced to its text.
fn anchor(heading: &str) -> String {
    let mut text = heading.replace('`', "");
    // [text](target) reads as its text.
    while let (Some(open), Some(mid)) = (text.find('['), text.find("](")) {
        let Some(close) = text[mid..].find(')').map(|c| mid + c) else {
            break;
        };
        if open > mid {
            break;
        }
        text = format!(
            "{}{}{}",
            &text[..open],
            &text[open + 1..mid],
            &text[close + 1..]
        );
    }
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a page's headings (a repeated one gets `-1`, `-2`, … as in mdbook).
fn anchors(page: &str) -> BTreeSet<String> {
    let mut seen = BTreeMap::<String, usize>::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        if fenced {
            continue;
        }
        let id = anchor(heading.trim_start_matches('#'));
        let n = seen.entry(id.clone()).or_insert(0);
        out.insert(if *n == 0 {
            id.clone()
        } else {
            format!("{id}-{n}")
        });
        *n += 1;
    }
    out
}

/// `base/../x` as mdbook reads a link: `..` undoes the last part of the path as
/// written, not of the file it links to.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What is wrong with the relative links of `files`, in words.
fn broken_links(files: &[PathBuf]) -> Vec<String> {
    let mut broken = Vec::new();
    for file in files {
        let Ok(page) = std::fs::read_to_string(file) else {
            broken.push(format!("{} cannot be read", file.display()));
            continue;
        };
        let from = file
            .strip_prefix(ROOT)
            .unwrap_or(file)
            .display()
            .to_string();
        for target in links(&page) {
            if target.contains("://") || target.starts_with("mailto:") || target.starts_with('/') {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let dest = if path.is_empty() {
                file.clone()
            } else {
                lexical(&file.parent().unwrap_or(Path::new(ROOT)).join(path))
            };
            if !dest.exists() {
                broken.push(format!("{from}: ({target}) reaches no file"));
                continue;
            }
            // The rendered book holds only what is under its source directory.
            let book = Path::new(ROOT).join("docs/src");
            if file.starts_with(&book) && !dest.starts_with(&book) {
                broken.push(format!("{from}: ({target}) leaves the book (docs/src)"));
                continue;
            }
            let Some(fragment) = fragment else { continue };
            let Ok(dest_page) = std::fs::read_to_string(&dest) else {
                broken.push(format!("{from}: ({target}) has an anchor but is no page"));
                continue;
            };
            if !anchors(&dest_page).contains(fragment) {
                broken.push(format!("{from}: ({target}) names no heading of its page"));
            }
        }
    }
    broken
}

/// The book's pages and the README, which links into it.
fn book_files() -> Vec<PathBuf> {
    let mut files = vec![Path::new(ROOT).join("README.md")];
    walk(&Path::new(ROOT).join("docs/src"), "md", &mut files);
    files
}

#[test]
fn every_link_of_the_book_reaches_its_page_and_heading() {
    let files = book_files();
    assert!(
        files.len() > 20,
        "the book's pages were not found: {files:?}"
    );
    let broken = broken_links(&files);
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let src = Path::new(ROOT).join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = links(&summary).iter().map(|l| src.join(l)).collect();
    let mut pages = Vec::new();
    walk(&src, "md", &mut pages);
    let missing: Vec<_> = pages
        .iter()
        .filter(|p| !p.ends_with("SUMMARY.md") && !listed.contains(*p))
        .map(|p| p.display().to_string())
        .collect();
    assert!(missing.is_empty(), "pages not in SUMMARY.md: {missing:?}");
}

#[test]
fn the_link_check_sees_a_missing_page_and_a_missing_heading() {
    let dir = std::env::temp_dir().join(format!("formsd-book-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).expect("a temporary directory");
    let page = dir.join("sub/page.md");
    std::fs::write(
        &page,
        "# A `code` title: here\n\n## Twice\n\n## Twice\n\n\
         [ok](#a-code-title-here) [ok](#twice-1) [ok](../sub/page.md#twice)\n\
         [bad](#nowhere) [bad](missing.md) `[not a link](missing.md)`\n\
         ```\n[not a link](missing.md)\n```\n",
    )
    .expect("writing the page");
    let broken = broken_links(std::slice::from_ref(&page));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].contains("#nowhere"), "{broken:?}");
    assert!(broken[1].contains("missing.md"), "{broken:?}");
}
