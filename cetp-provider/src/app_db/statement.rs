//! Whether a statement is one read: what [`AppDatabase`](super::AppDatabase) refuses before any
//! SQL reaches SQLite.
//!
//! The check reads the statement as SQLite's tokenizer would (comments, string literals, quoted
//! identifiers), so a keyword inside `'…'` or `"…"` is text, not SQL. It accepts one statement
//! whose verb is `SELECT` or `VALUES`, possibly after a `WITH` clause, and nothing after its
//! optional `;`. Anywhere in it, a word that only a statement other than a read can hold
//! (`INSERT`, `UPDATE`, `DELETE`, `ATTACH`, `PRAGMA`, `CREATE`, …) is refused too, even where
//! SQLite would read it as a name: quote such a name (`"update"`). Values are bound to plain `?`
//! placeholders only; a named or numbered one (`:id`, `?2`) is refused, so that the values of a
//! call are bound in the order given.

/// Words no single read contains (outside quotes): each starts, or only appears in, a statement
/// that writes, changes the schema or the connection, or loads code.
const NEVER_IN_A_READ: &[&str] = &[
    "INSERT",
    "UPDATE",
    "DELETE",
    "ATTACH",
    "DETACH",
    "PRAGMA",
    "CREATE",
    "DROP",
    "ALTER",
    "VACUUM",
    "REINDEX",
    "ANALYZE",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "RELEASE",
    "LOAD_EXTENSION",
];

/// What a statement that passed the check needs bound: how many `?` it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Read {
    pub(crate) placeholders: usize,
}

/// Why a statement is not one read, in words for the app's developer (no part of the statement
/// is quoted back, so no message ever carries what the SQL holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal(pub(crate) String);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Open,
    Close,
    Semicolon,
    Placeholder,
    Other,
}

/// Checks that `sql` is one read (see the module's documentation).
pub(crate) fn check(sql: &str) -> Result<Read, Refusal> {
    let tokens = tokenize(sql)?;
    let end = tokens
        .iter()
        .position(|t| *t == Token::Semicolon)
        .unwrap_or(tokens.len());
    if tokens[end..].iter().any(|t| *t != Token::Semicolon) || tokens[end..].len() > 1 {
        return Err(refuse("it holds more than one statement"));
    }
    let tokens = &tokens[..end];
    let Some(Token::Word(first)) = tokens.first() else {
        return Err(refuse(
            "it is empty or does not start with SELECT, VALUES or WITH",
        ));
    };
    if let Some(word) = tokens.iter().find_map(|t| match t {
        Token::Word(w) if NEVER_IN_A_READ.contains(&w.as_str()) => Some(w),
        _ => None,
    }) {
        return Err(refuse(&format!(
            "it contains {word}, which no read holds (quote a column or table with that name: \"{}\")",
            word.to_ascii_lowercase()
        )));
    }
    match first.as_str() {
        "SELECT" | "VALUES" => {}
        "WITH" => {
            let verb = main_verb(tokens);
            if !matches!(verb, Some("SELECT" | "VALUES")) {
                return Err(refuse(
                    "its WITH clause is not followed by SELECT or VALUES",
                ));
            }
        }
        other => {
            return Err(refuse(&format!(
                "it starts with {other}, not SELECT, VALUES or WITH"
            )));
        }
    }
    let mut depth = 0usize;
    for token in tokens {
        match token {
            Token::Open => depth += 1,
            Token::Close => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| refuse("its parentheses do not match"))?;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(refuse("its parentheses do not match"));
    }
    Ok(Read {
        placeholders: tokens.iter().filter(|t| **t == Token::Placeholder).count(),
    })
}

/// The first statement verb at parenthesis depth 0 after `WITH`: the common table expressions
/// are `name [(columns)] AS [NOT] [MATERIALIZED] (body)`, so their words outside parentheses
/// are names and `AS`, and the first verb found there is the statement's.
fn main_verb(tokens: &[Token]) -> Option<&str> {
    let mut depth = 0usize;
    for token in tokens.iter().skip(1) {
        match token {
            Token::Open => depth += 1,
            Token::Close => depth = depth.saturating_sub(1),
            Token::Word(w) if depth == 0 => {
                if matches!(w.as_str(), "SELECT" | "VALUES" | "REPLACE") {
                    return Some(w);
                }
            }
            _ => {}
        }
    }
    None
}

fn refuse(why: &str) -> Refusal {
    Refusal(format!("the query is not a single read: {why}"))
}

/// SQLite's tokens, as far as the check needs them: words upper-cased, everything quoted
/// dropped.
fn tokenize(sql: &str) -> Result<Vec<Token>, Refusal> {
    let bytes = sql.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => i += 1,
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                i = bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(bytes.len(), |n| i + n + 1);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let close = sql[i + 2..]
                    .find("*/")
                    .ok_or_else(|| refuse("a comment is not closed"))?;
                i += 2 + close + 2;
            }
            b'\'' | b'"' | b'`' => {
                i = skip_quoted(bytes, i, b)?;
                tokens.push(if b == b'\'' {
                    Token::Other
                } else {
                    // A quoted identifier names something: a word that is never a keyword.
                    Token::Word(String::new())
                });
            }
            b'[' => {
                let close = bytes[i..]
                    .iter()
                    .position(|&c| c == b']')
                    .ok_or_else(|| refuse("a [name] is not closed"))?;
                i += close + 1;
                tokens.push(Token::Word(String::new()));
            }
            b'(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            b')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            b';' => {
                tokens.push(Token::Semicolon);
                i += 1;
            }
            b'?' => {
                if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    return Err(refuse(
                        "it numbers a placeholder (?NNN); write plain ? and give the values in order",
                    ));
                }
                tokens.push(Token::Placeholder);
                i += 1;
            }
            b':' | b'@' | b'$' if bytes.get(i + 1).is_some_and(|&c| is_word_byte(c)) => {
                return Err(refuse(
                    "it names a placeholder (:name, @name, $name); write plain ? and give the values in order",
                ));
            }
            b'x' | b'X' if bytes.get(i + 1) == Some(&b'\'') => {
                i = skip_quoted(bytes, i + 1, b'\'')?;
                tokens.push(Token::Other);
            }
            _ if is_word_start(b) => {
                let len = bytes[i..]
                    .iter()
                    .position(|&c| !is_word_byte(c))
                    .unwrap_or(bytes.len() - i);
                tokens.push(Token::Word(sql[i..i + len].to_ascii_uppercase()));
                i += len;
            }
            _ if b.is_ascii_digit() || b == b'.' => {
                let len = bytes[i..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || c == b'.' || c == b'_'))
                    .unwrap_or(bytes.len() - i);
                tokens.push(Token::Other);
                i += len;
            }
            _ => {
                tokens.push(Token::Other);
                // Step over the whole character (multi-byte UTF-8 outside quotes is an error
                // SQLite reports; here it is one token).
                i += sql[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    Ok(tokens)
}

/// The index after the literal or identifier quoted with `quote` that starts at `start`; a
/// doubled quote inside is part of it.
fn skip_quoted(bytes: &[u8], start: usize, quote: u8) -> Result<usize, Refusal> {
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return Ok(i + 1);
        }
        i += 1;
    }
    Err(refuse("a quoted text or name is not closed"))
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholders(sql: &str) -> usize {
        match check(sql) {
            Ok(read) => read.placeholders,
            Err(Refusal(why)) => panic!("{sql}: {why}"),
        }
    }

    fn refused(sql: &str) -> String {
        match check(sql) {
            Ok(read) => panic!("{sql} was accepted ({read:?})"),
            Err(Refusal(why)) => why,
        }
    }

    #[test]
    fn reads_pass_with_their_placeholders_counted() {
        assert_eq!(placeholders("SELECT 1"), 0);
        assert_eq!(
            placeholders("  select id, title from entry where id = ? ;  "),
            1
        );
        assert_eq!(
            placeholders("SELECT * FROM entry WHERE mood = ? AND at < ? LIMIT ?"),
            3
        );
        assert_eq!(placeholders("VALUES (1), (2)"), 0);
        assert_eq!(
            placeholders(
                "WITH recent(id) AS (SELECT id FROM entry ORDER BY at DESC LIMIT ?) SELECT * FROM recent"
            ),
            1
        );
        assert_eq!(
            placeholders(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
            ),
            0
        );
        // Keywords inside text, quoted names and comments are not SQL.
        assert_eq!(
            placeholders(
                "SELECT 'DELETE FROM x; --', \"update\", [drop], `insert` FROM t -- ATTACH\n"
            ),
            0
        );
        assert_eq!(placeholders("SELECT /* PRAGMA writable_schema=1; */ 1"), 0);
        assert_eq!(placeholders("SELECT x'00ff', 'it''s ?'"), 0);
        assert_eq!(
            placeholders("SELECT replace(title, 'a', 'b'), CASE WHEN 1 THEN 2 END FROM t"),
            0
        );
        assert_eq!(placeholders("SELECT * FROM pragma_table_info('entry')"), 0);
        assert_eq!(placeholders("SELECT '—' || ? FROM t"), 1);
    }

    #[test]
    fn every_statement_that_is_not_one_read_is_refused() {
        for sql in [
            "INSERT INTO entry(title) VALUES ('x')",
            "insert into entry default values",
            "UPDATE entry SET title = ''",
            "DELETE FROM entry",
            "REPLACE INTO entry VALUES (1)",
            "PRAGMA writable_schema=1",
            "pragma user_version",
            "ATTACH DATABASE '/sdcard/x.db' AS x",
            "DETACH x",
            "CREATE TABLE x(y)",
            "DROP TABLE entry",
            "ALTER TABLE entry ADD COLUMN z",
            "VACUUM",
            "VACUUM INTO '/sdcard/copy.db'",
            "BEGIN IMMEDIATE",
            "ANALYZE",
            "REINDEX",
            "SAVEPOINT a",
            "WITH x AS (SELECT 1) INSERT INTO entry SELECT * FROM x",
            "WITH x AS (SELECT 1) DELETE FROM entry",
            "WITH x AS (SELECT 1) UPDATE entry SET title = 1",
            "WITH x AS (SELECT 1) REPLACE INTO entry SELECT * FROM x",
            "SELECT load_extension('/data/local/tmp/x.so')",
            "",
            "  ;",
            "-- only a comment",
            "EXPLAIN SELECT 1",
        ] {
            refused(sql);
        }
    }

    #[test]
    fn two_statements_in_one_string_are_refused() {
        assert!(refused("SELECT 1; DELETE FROM entry").contains("more than one statement"));
        assert!(refused("SELECT 1; SELECT 2").contains("more than one statement"));
        assert!(refused("SELECT 1;;").contains("more than one statement"));
        assert!(refused("SELECT ';'; PRAGMA writable_schema=1").contains("more than one"));
        // A comment that hides the end of the first statement does not hide the second.
        assert!(refused("SELECT 1 /* x */; ATTACH 'a' AS b").contains("more than one"));
    }

    #[test]
    fn placeholders_other_than_plain_question_marks_are_refused() {
        assert!(refused("SELECT * FROM t WHERE id = :id").contains("names a placeholder"));
        assert!(refused("SELECT * FROM t WHERE id = @id").contains("names a placeholder"));
        assert!(refused("SELECT * FROM t WHERE id = $id").contains("names a placeholder"));
        assert!(refused("SELECT * FROM t WHERE id = ?1").contains("numbers a placeholder"));
    }

    #[test]
    fn unclosed_quotes_comments_and_parentheses_are_refused() {
        for sql in [
            "SELECT 'abc",
            "SELECT \"abc",
            "SELECT [abc",
            "SELECT /* abc",
            "SELECT (1",
            "SELECT 1)",
        ] {
            refused(sql);
        }
    }

    #[test]
    fn a_refusal_never_quotes_the_statement() {
        let why = refused("INSERT INTO secrets VALUES ('hunter2')");
        assert!(
            !why.contains("hunter2") && !why.contains("secrets"),
            "{why}"
        );
    }
}
