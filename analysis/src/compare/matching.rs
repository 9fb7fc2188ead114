//! Which tasks play the same role in different runs (pids differ between runs, and the
//! same workload's tasks may be named differently on different kernels): exact name by
//! default, trailing digits folded (`--fold`), a regular expression whose first capture
//! group is the role (`--match`), after renaming by `--alias FROM=TO`.

use crate::select::fold_name;
use regex::Regex;

/// How a task name becomes a role key.
#[derive(Debug, Clone, Default)]
pub enum MatchBy {
    /// The name as it is.
    #[default]
    Exact,
    /// Trailing digits removed (`kworker/1` stays, `cc1` becomes `cc`).
    Fold,
    /// The first capture group of the match (the whole match when the group did not
    /// take part); a name the expression does not match keeps its exact name.
    Regex(Regex),
}

/// The matching of a comparison.
#[derive(Debug, Clone, Default)]
pub struct Matching {
    pub by: MatchBy,
    /// `FROM=TO`: a task named FROM is taken as named TO (before `by` applies).
    pub aliases: Vec<(String, String)>,
}

impl Matching {
    /// `--match REGEX`: the expression must have a capture group (the role key).
    pub fn regex(text: &str) -> Result<MatchBy, String> {
        let re = Regex::new(text).map_err(|e| format!("--match {text:?}: {e}"))?;
        if re.captures_len() < 2 {
            return Err(format!(
                "--match {text:?}: needs a capture group, e.g. 'nice-?n?(\\d)': its text is the role"
            ));
        }
        Ok(MatchBy::Regex(re))
    }

    /// `--alias FROM=TO`.
    pub fn parse_alias(text: &str) -> Result<(String, String), String> {
        match text.split_once('=') {
            Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
            _ => Err(format!(
                "--alias {text:?}: expected NAME=NAME, e.g. mspin=mi-spin"
            )),
        }
    }

    /// The role of a task named `comm`.
    pub fn role(&self, comm: &str) -> String {
        let name = self.role_source(comm);
        match &self.by {
            MatchBy::Exact => name.to_string(),
            MatchBy::Fold => fold_name(name).to_string(),
            MatchBy::Regex(re) => match re.captures(name) {
                Some(c) => c
                    .get(1)
                    .or_else(|| c.get(0))
                    .map_or(name, |m| m.as_str())
                    .to_string(),
                None => name.to_string(),
            },
        }
    }

    /// Whether `comm` is named by the `--match` expression (false without one).
    pub(crate) fn matched(&self, comm: &str) -> bool {
        match &self.by {
            MatchBy::Regex(re) => re.is_match(self.role_source(comm)),
            _ => false,
        }
    }

    /// The name after the aliases.
    fn role_source<'a>(&'a self, comm: &'a str) -> &'a str {
        self.aliases
            .iter()
            .find(|(from, _)| from == comm)
            .map_or(comm, |(_, to)| to.as_str())
    }

    /// For the JSON and the text header.
    pub(crate) fn describe(&self) -> String {
        let by = match &self.by {
            MatchBy::Exact => "exact task name".to_string(),
            MatchBy::Fold => "task name with trailing digits folded".to_string(),
            MatchBy::Regex(re) => format!(
                "first capture group of /{}/ (else the exact name)",
                re.as_str()
            ),
        };
        if self.aliases.is_empty() {
            by
        } else {
            let list: Vec<String> = self
                .aliases
                .iter()
                .map(|(a, b)| format!("{a}={b}"))
                .collect();
            format!("{by}, after aliases {}", list.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        let exact = Matching::default();
        assert_eq!(exact.role("nice-n0"), "nice-n0");
        let fold = Matching {
            by: MatchBy::Fold,
            aliases: vec![],
        };
        assert_eq!(fold.role("cc1"), "cc");
        let re = Matching {
            by: Matching::regex(r"nice-?n?(\d)").unwrap(),
            aliases: vec![],
        };
        assert_eq!(
            (re.role("nice-n0"), re.role("nice5")),
            ("0".into(), "5".into())
        );
        assert_eq!(re.role("kworker/1:1"), "kworker/1:1");
        assert!(re.matched("nice0") && !re.matched("wl_parent"));
        let aliased = Matching {
            by: MatchBy::Exact,
            aliases: vec![Matching::parse_alias("mspin=mi-spin").unwrap()],
        };
        assert_eq!(aliased.role("mspin"), "mi-spin");
        assert!(Matching::regex("nice").is_err());
        assert!(Matching::parse_alias("x").is_err());
    }
}
