//! Which environment variables hold secrets.
//!
//! A name is split into words at `_`, `-` and `.`; it looks secret when one
//! word is a secret word (`KEY`, `TOKEN`, `AUTH`, …) or ends with one of the
//! long ones (`APIKEY`, `ACCESSTOKEN`). Whole words keep `KEYBOARD` or
//! `AUTHOR` out; the suffix rule catches names written without separators.
//!
//! A value can give a secret away whatever its variable's name: a token
//! with a well-known prefix (`ghp_`, `sk_live_`, `xoxb-`, `AKIA`, …), a JSON
//! Web Token, or a URL with a password, of which only the password is
//! secret ([`PASSWORD_PART`]). Names that only hint at a secret (`PAT`,
//! `SK`, `JWT`, `BEARER`, …) hold one when their value looks random: long,
//! of letters and digits, with no spaces, and high in entropy, so that a
//! path or a word is never taken for one.

use super::MIN_SECRET_LEN;

/// The suffix of a redacted name that stands for the password of the URL
/// the variable holds (`DATABASE_URL:password`): the rest of the URL stays
/// readable, and its placeholder is `[REDACTED:DATABASE_URL:password]`.
pub(crate) const PASSWORD_PART: &str = ":password";

/// Prefixes of tokens that well-known services issue, with the least
/// number of token characters that must follow.
const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("ghp_", 20),
    ("gho_", 20),
    ("ghu_", 20),
    ("ghs_", 20),
    ("ghr_", 20),
    ("github_pat_", 20),
    ("glpat-", 16),
    ("sk-", 20),
    ("sk_live_", 16),
    ("sk_test_", 16),
    ("rk_live_", 16),
    ("rk_test_", 16),
    ("pk_live_", 16),
    ("xoxb-", 16),
    ("xoxp-", 16),
    ("xoxa-", 16),
    ("xoxs-", 16),
    ("xapp-", 16),
    ("AKIA", 16),
    ("ASIA", 16),
    ("AIza", 30),
    ("hf_", 20),
    ("npm_", 30),
    ("pypi-", 30),
    ("shpat_", 20),
    ("SG.", 20),
];

/// Words of a name that hint at a secret, but are too short or too common
/// to make one on their own: the value must look random too.
const HINT_WORDS: &[&str] = &[
    "PAT",
    "SK",
    "JWT",
    "BEARER",
    "SESSION",
    "HMAC",
    "SIGNING",
    "SIGNATURE",
    "SALT",
    "NONCE",
    "WEBHOOK",
];

/// The least length of a value that is taken for random.
const MIN_RANDOM_LEN: usize = 16;

/// The least entropy, in bits per character, of a value taken for random:
/// English words and identifiers stay below it, random base64 or hex of
/// this length are well above.
const MIN_ENTROPY: f64 = 3.5;

/// Words that make a variable name secret when they appear as a whole word.
const SECRET_WORDS: &[&str] = &[
    "KEY",
    "KEYS",
    "APIKEY",
    "TOKEN",
    "TOKENS",
    "SECRET",
    "SECRETS",
    "PASSWORD",
    "PASSWORDS",
    "PASSWD",
    "PASS",
    "PASSPHRASE",
    "PWD",
    "CREDENTIAL",
    "CREDENTIALS",
    "CREDS",
    "AUTH",
    "PRIVATE",
    "COOKIE",
    "DSN",
];

/// Words that make a name secret also at the end of a longer word.
const SECRET_SUFFIXES: &[&str] = &["APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD"];

/// Variables whose names contain a secret word but whose values are not
/// secret and appear in messages all the time.
const NOT_SECRET: &[&str] = &["PWD", "OLDPWD", "SSH_AUTH_SOCK"];

/// Whether the variable `name` looks like it holds a secret.
pub(crate) fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if NOT_SECRET.contains(&upper.as_str()) {
        return false;
    }
    upper.split(['_', '-', '.']).any(|word| {
        SECRET_WORDS.contains(&word)
            || SECRET_SUFFIXES
                .iter()
                .any(|suffix| word.len() > suffix.len() && word.ends_with(suffix))
    })
}

/// Whether `value` has the shape of a token, whatever its name: a known
/// prefix followed by enough token characters, or a JSON Web Token.
pub(crate) fn looks_like_token(value: &str) -> bool {
    let token_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let prefixed = TOKEN_PREFIXES.iter().any(|(prefix, min)| {
        value.strip_prefix(prefix).is_some_and(|rest| {
            rest.len() >= *min && rest.chars().all(|c| token_char(c) || c == '.')
        })
    });
    prefixed || is_jwt(value)
}

/// Three base64url segments, the first starting `eyJ` (`{"` encoded).
fn is_jwt(value: &str) -> bool {
    let base64url = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '=')
    };
    let parts: Vec<&str> = value.split('.').collect();
    value.starts_with("eyJ") && parts.len() == 3 && parts.iter().all(|part| base64url(part))
}

/// The password of a URL with credentials (`scheme://user:password@host`),
/// where it stands in `value`.
pub(crate) fn url_password(value: &str) -> Option<std::ops::Range<usize>> {
    let (scheme, rest) = value.split_once("://")?;
    let mut chars = scheme.chars();
    if !chars.next()?.is_ascii_alphabetic()
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let userinfo = &authority[..authority.rfind('@')?];
    let (_, password) = userinfo.split_once(':')?;
    if password.is_empty() {
        return None;
    }
    let start = scheme.len() + "://".len() + userinfo.len() - password.len();
    Some(start..start + password.len())
}

/// Whether `value` looks random: long, with no spaces, of letters and
/// digits (and the few marks tokens use), not a path, and high in entropy.
fn looks_random(value: &str) -> bool {
    if value.len() < MIN_RANDOM_LEN
        || value.starts_with(['/', '.', '~'])
        || value.contains("://")
        || !value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '/' | '='))
        || !value.chars().any(|c| c.is_ascii_digit())
        || !value.chars().any(|c| c.is_ascii_alphabetic())
    {
        return false;
    }
    let mut counts = [0usize; 128];
    for byte in value.bytes() {
        counts[usize::from(byte & 0x7f)] += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let len = value.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            #[allow(clippy::cast_precision_loss)]
            let p = n as f64 / len;
            -p * p.log2()
        })
        .sum();
    entropy >= MIN_ENTROPY
}

/// Whether the name hints at a secret (`GH_PAT`, `STRIPE_SK`, `BEARER`).
fn hints_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper
        .split(['_', '-', '.'])
        .any(|word| HINT_WORDS.contains(&word))
}

/// What of the variable `name` holding `value` is secret: the whole value
/// (its name), the password of the URL it holds (`NAME:password`), or
/// nothing. Values, and passwords, shorter than [`MIN_SECRET_LEN`] bytes
/// are never secret.
fn secret_of(name: &str, value: &str, extra: &[String]) -> Option<String> {
    if value.len() < MIN_SECRET_LEN {
        return None;
    }
    if looks_secret(name) || extra.iter().any(|e| e == name) || looks_like_token(value) {
        return Some(name.to_owned());
    }
    if let Some(password) = url_password(value) {
        return (password.len() >= MIN_SECRET_LEN).then(|| format!("{name}{PASSWORD_PART}"));
    }
    (hints_secret(name) && looks_random(value)).then(|| name.to_owned())
}

/// The value a redacted name stands for: the variable's value, or for
/// `NAME:password` the password of the URL in `NAME`.
pub(crate) fn secret_value(name: &str, lookup: impl Fn(&str) -> Option<String>) -> Option<String> {
    match name.strip_suffix(PASSWORD_PART) {
        Some(base) => {
            let url = lookup(base)?;
            url_password(&url).map(|range| url[range].to_owned())
        }
        None => lookup(name),
    }
}

/// The names of the variables in `env` whose values are to be redacted:
/// those that look secret by name or by value, plus those in `extra`, when
/// their value is at least [`MIN_SECRET_LEN`] bytes long; a URL with a
/// password gives `NAME:password`. Sorted, without repeats.
pub(crate) fn secret_names<'a>(
    env: impl IntoIterator<Item = (&'a str, &'a str)>,
    extra: &[String],
) -> Vec<String> {
    let mut names: Vec<String> = env
        .into_iter()
        .filter_map(|(name, value)| secret_of(name, value, extra))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The names of the variables of this process's environment that look
/// secret, with values of at least [`MIN_SECRET_LEN`] bytes: what `record`
/// would redact if it ran here. `check` redacts them too, since a secret
/// set where a transcript is checked (in CI) is often one that was not set
/// where it was recorded.
pub(crate) fn env_secret_names() -> Vec<String> {
    let env: Vec<(String, String)> = std::env::vars_os()
        .map(|(name, value)| {
            (
                name.to_string_lossy().into_owned(),
                value.to_string_lossy().into_owned(),
            )
        })
        .collect();
    secret_names(env.iter().map(|(n, v)| (n.as_str(), v.as_str())), &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for name in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "PGPASSWORD",
            "MYSQL_PWD",
            "SMTP_PASS",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "SLACK_APIKEY",
            "npm_config__auth",
            "SENTRY_DSN",
            "PRIVATE_KEY",
            "BRAVE_APIKEY",
            "GH_ACCESSTOKEN",
        ] {
            assert!(looks_secret(name), "{name} should look secret");
        }
    }

    #[test]
    fn ordinary_names() {
        for name in [
            "KEYBOARD_LAYOUT",
            "AUTHOR_NAME",
            "PATH",
            "HOME",
            "PWD",
            "OLDPWD",
            "SSH_AUTH_SOCK",
            "MONKEY_PATCH",
            "TOKENIZERS_PARALLELISM",
            "PASSENGER_APP_ENV",
            "LANG",
        ] {
            assert!(!looks_secret(name), "{name} should not look secret");
        }
    }

    fn names(env: &[(&str, &str)]) -> Vec<String> {
        super::secret_names(env.iter().copied(), &[])
    }

    #[test]
    fn tokens_are_known_by_their_prefix_whatever_the_name() {
        for (name, value) in [
            ("GH", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
            ("GH_OAUTH", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
            (
                "FINE",
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            ),
            ("OPENAI", "sk-proj-AbCdEf0123456789GhIjKlMn"),
            ("STRIPE", "sk_live_51H8abcdefGHIJKLmnop"),
            ("SLACK_BOT", "xoxb-123456789012-1234567890123-AbCdEfGh"),
            ("AWS_ID", "AKIAIOSFODNN7EXAMPLE"),
            ("GITLAB", "glpat-xxxxXXXXxxxxXXXX1234"),
        ] {
            assert_eq!(names(&[(name, value)]), vec![name.to_owned()], "{value}");
        }
    }

    #[test]
    fn a_json_web_token_is_known_by_its_shape() {
        let jwt =
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        assert_eq!(names(&[("SESSION_VALUE", jwt)]), vec!["SESSION_VALUE"]);
        assert!(!looks_like_token("eyJ.only-two"));
        assert!(!looks_like_token("eyJhbGciOiJIUzI1NiJ9.a b.c"));
    }

    #[test]
    fn a_url_with_a_password_gives_its_password_alone() {
        let url = "postgres://app:s3cr3t-pass@db.internal:5432/app";
        assert_eq!(
            names(&[("DATABASE_URL", url)]),
            vec!["DATABASE_URL:password"]
        );
        assert_eq!(&url[url_password(url).unwrap()], "s3cr3t-pass");
        let lookup = |name: &str| (name == "DATABASE_URL").then(|| url.to_owned());
        assert_eq!(
            secret_value("DATABASE_URL:password", lookup).as_deref(),
            Some("s3cr3t-pass")
        );
        // No password, a short one, a user alone, or an @ in the path.
        for url in [
            "https://example.com/a@b",
            "postgres://app@db/app",
            "postgres://app:pw@db/app",
            "redis://:@host",
        ] {
            assert_eq!(
                names(&[("DATABASE_URL", url)]),
                Vec::<String>::new(),
                "{url}"
            );
        }
        assert_eq!(
            url_password("redis://:longpassword@cache:6379"),
            Some(9..21)
        );
    }

    #[test]
    fn names_that_hint_at_a_secret_hold_one_when_the_value_looks_random() {
        for (name, value) in [
            ("GH_PAT", "Zq8VnW2rLk5tYx3Bm9Jd"),
            ("STRIPE_SK", "a8F3kL0pQ9zX2vB7nM4c"),
            ("JWT", "f0e1d2c3b4a5968778695a4b3c2d1e0f"),
            ("BEARER", "dGhpcyBpcyBhIHNlY3JldCB0b2tlbjE5"),
        ] {
            assert_eq!(names(&[(name, value)]), vec![name.to_owned()], "{value}");
        }
        // Paths, words, versions and short values are no secrets.
        for (name, value) in [
            ("PAT_DIR", "/home/user/projects/pat-files"),
            ("SESSION_NAME", "my-long-session-name"),
            ("BEARER", "not a secret at all, words"),
            ("SK", "aaaaaaaaaaaaaaaaaaaa1"),
            ("JWT_ALG", "HS256"),
            ("WEBHOOK_KIND", "github-pull-request-events"),
        ] {
            assert_eq!(
                names(&[(name, value)]),
                Vec::<String>::new(),
                "{name}={value}"
            );
        }
    }

    #[test]
    fn ordinary_values_of_ordinary_names_are_left_alone() {
        for (name, value) in [
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("HOME", "/home/user"),
            ("LANG", "en_US.UTF-8"),
            ("EDITOR", "vim"),
            ("HOMEPAGE", "https://example.com/docs"),
            ("SKIP_LIST", "sk-short"),
            ("GIT_COMMIT", "3f786850e387550fdab836ed7e6dc881de23001b"),
        ] {
            assert_eq!(names(&[(name, value)]), Vec::<String>::new(), "{name}");
        }
    }

    #[test]
    fn short_values_and_extra_names() {
        let env = [
            ("GITHUB_TOKEN", "ghp_0123456789"),
            ("API_KEY", "abc"),
            ("HOME", "/home/user"),
            ("MY_VALUE", "hidden-value"),
        ];
        assert_eq!(
            super::secret_names(env, &["MY_VALUE".to_owned()]),
            vec!["GITHUB_TOKEN".to_owned(), "MY_VALUE".to_owned()]
        );
    }
}
