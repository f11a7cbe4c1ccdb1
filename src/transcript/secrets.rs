//! Which environment variables hold secrets.
//!
//! A name is split into words at `_`, `-` and `.`; it looks secret when one
//! word is a secret word (`KEY`, `TOKEN`, `AUTH`, …) or ends with one of the
//! long ones (`APIKEY`, `ACCESSTOKEN`). Whole words keep `KEYBOARD` or
//! `AUTHOR` out; the suffix rule catches names written without separators.

use super::MIN_SECRET_LEN;

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

/// The names of the variables in `env` whose values are to be redacted:
/// those that look secret, plus those in `extra`, when their value is at
/// least [`MIN_SECRET_LEN`] bytes long. Sorted, without repeats.
pub(crate) fn secret_names<'a>(
    env: impl IntoIterator<Item = (&'a str, &'a str)>,
    extra: &[String],
) -> Vec<String> {
    let mut names: Vec<String> = env
        .into_iter()
        .filter(|(name, value)| {
            (looks_secret(name) || extra.iter().any(|e| e == name)) && value.len() >= MIN_SECRET_LEN
        })
        .map(|(name, _)| name.to_owned())
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
