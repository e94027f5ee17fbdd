//! Parsing of the `#[tool(...)]` arguments: `name = "…"`, `scopes = ["…", …]`, `title = "…"`,
//! `idempotent` and `open_world`.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr};

/// The arguments of `#[tool(...)]`.
#[derive(Default)]
pub(crate) struct ToolAttr {
    /// `name = "…"`: overrides the tool name (the function name by default).
    pub(crate) name: Option<LitStr>,
    /// `scopes = [...]`: the scopes a caller must hold.
    pub(crate) scopes: Vec<LitStr>,
    /// The metadata keys.
    pub(crate) meta: MetaAttr,
}

/// `title = "…"`, `idempotent`, `open_world`, `long_running`: what the tool descriptor says
/// about the tool.
#[derive(Default)]
pub(crate) struct MetaAttr {
    pub(crate) title: Option<LitStr>,
    pub(crate) idempotent: bool,
    pub(crate) open_world: bool,
    pub(crate) long_running: bool,
}

const KEYS_HINT: &str = "expected `name`, `scopes`, `title`, `idempotent`, `open_world` or `long_running`, e.g. `#[tool(name = \"search_notes\", scopes = [\"notes.read\"])]`";

/// Parses the attribute arguments. Errors are returned together so one build reports them all.
pub(crate) fn parse(tokens: TokenStream) -> Result<ToolAttr, syn::Error> {
    let mut attr = ToolAttr::default();
    let mut seen_scopes = false;
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "name" => {
                if attr.name.is_some() {
                    return Err(meta.error("duplicate key `name`: give the tool one name"));
                }
                let value = meta.value().map_err(|_| {
                    meta.error("expected `name = \"tool_name\"` (a string literal)")
                })?;
                attr.name = Some(parse_str_lit(
                    value,
                    "expected a string literal: `name = \"search_notes\"`",
                )?);
                Ok(())
            }
            "scopes" => {
                if seen_scopes {
                    return Err(meta.error(
                        "duplicate key `scopes`: list every scope in one `scopes = [...]`",
                    ));
                }
                seen_scopes = true;
                let value = meta.value().map_err(|_| {
                    meta.error("expected `scopes = [\"scope\", ...]` (a list of string literals)")
                })?;
                attr.scopes = parse_scopes(value)?;
                Ok(())
            }
            "title" | "idempotent" | "open_world" | "long_running" => {
                parse_meta(&meta, &key, &mut attr.meta)
            }
            "execution" | "sync_or_async" | "long" | "slow" | "background" | "asynchronous"
            | "long_running_hint" => Err(meta.error(format!(
                "unknown key `{key}`: a tool that may run long is marked `#[tool(long_running)]` \
                 (CETP v2 advertises it as `execution: sync_or_async`; the SDK decides when a call \
                 becomes a background operation)"
            ))),
            "destructive" | "read_only" | "readonly" | "destructive_hint" | "read_only_hint"
            | "readOnlyHint" | "destructiveHint" | "writes" => Err(meta.error(format!(
                "`{key}`: CETP v1 tools are read-only by design (an agent calls them without the \
                 user watching each call), so a tool cannot be marked as writing or destructive; \
                 every tool is advertised with `readOnlyHint: true`. Keep changes to the app's \
                 data inside the app's own screens"
            ))),
            _ => {
                let shown = if key.is_empty() {
                    quote::ToTokens::to_token_stream(&meta.path)
                        .to_string()
                        .replace(' ', "")
                } else {
                    key
                };
                Err(syn::Error::new(
                    meta.path.span(),
                    format!("unknown key `{shown}`; {KEYS_HINT}"),
                ))
            }
        }
    });
    parser.parse2(tokens)?;
    Ok(attr)
}

/// One of the metadata keys (kept apart from `name`/`scopes`).
fn parse_meta(meta: &ParseNestedMeta<'_>, key: &str, attr: &mut MetaAttr) -> syn::Result<()> {
    let flag = |seen: bool| -> syn::Result<bool> {
        if seen {
            return Err(meta.error(format!("duplicate key `{key}`: write it once")));
        }
        if meta.input.peek(syn::Token![=]) {
            return Err(meta.error(format!(
                "`{key}` is a flag: write `#[tool({key})]`, or leave it out for `false`"
            )));
        }
        Ok(true)
    };
    match key {
        "title" => {
            if attr.title.is_some() {
                return Err(meta.error("duplicate key `title`: give the tool one title"));
            }
            let value = meta.value().map_err(|_| {
                meta.error("expected `title = \"Search notes\"` (a string literal)")
            })?;
            let lit = parse_str_lit(
                value,
                "expected a string literal: `title = \"Search notes\"`",
            )?;
            check_title(&lit)?;
            attr.title = Some(lit);
        }
        "idempotent" => attr.idempotent = flag(attr.idempotent)?,
        "long_running" => attr.long_running = flag(attr.long_running)?,
        _ => attr.open_world = flag(attr.open_world)?,
    }
    Ok(())
}

/// A title is one line of 1 to 64 characters.
fn check_title(lit: &LitStr) -> syn::Result<()> {
    let value = lit.value();
    let problem = if value.trim().is_empty() {
        Some("it is empty".to_owned())
    } else if value.chars().any(char::is_control) {
        Some("it contains a line break or another control character".to_owned())
    } else if value.chars().count() > 64 {
        Some(format!("it is {} characters long", value.chars().count()))
    } else {
        None
    };
    match problem {
        Some(problem) => Err(syn::Error::new(
            lit.span(),
            format!(
                "invalid title: {problem}; a title is a short name for people, one line of at \
                 most 64 characters, e.g. `title = \"Search notes\"`"
            ),
        )),
        None => Ok(()),
    }
}

fn parse_str_lit(input: ParseStream<'_>, message: &str) -> syn::Result<LitStr> {
    let expr: Expr = input.parse()?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(lit),
        other => Err(syn::Error::new_spanned(other, message)),
    }
}

fn parse_scopes(input: ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    const MESSAGE: &str = "expected a list of string literals: `scopes = [\"notes.read\"]`";
    let expr: Expr = input.parse()?;
    let array = match expr {
        Expr::Array(array) => array,
        // A single string is a common slip; point at it with the fix.
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            return Err(syn::Error::new(
                lit.span(),
                format!(
                    "`scopes` takes a list: write `scopes = [{:?}]`",
                    lit.value()
                ),
            ));
        }
        other => return Err(syn::Error::new_spanned(other, MESSAGE)),
    };
    let mut scopes = Vec::with_capacity(array.elems.len());
    for elem in array.elems {
        match elem {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => scopes.push(lit),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "each scope must be a string literal, e.g. `\"notes.read\"`",
                ));
            }
        }
    }
    Ok(scopes)
}

/// Checks the scope strings: non-empty, `[A-Za-z][A-Za-z0-9._:-]*`, at most 128 bytes, no
/// duplicates.
pub(crate) fn check_scopes(scopes: &[LitStr], errors: &mut Vec<syn::Error>) {
    let mut seen: Vec<String> = Vec::new();
    for lit in scopes {
        let value = lit.value();
        if let Err(problem) = check_scope(&value) {
            errors.push(syn::Error::new(
                lit.span(),
                format!(
                    "invalid scope {value:?}: {problem}; a scope starts with an ASCII letter and \
                     contains only ASCII letters, digits, `.`, `_`, `-` and `:` (at most 128 \
                     characters), e.g. \"notes.read\""
                ),
            ));
        } else if seen.contains(&value) {
            errors.push(syn::Error::new(
                lit.span(),
                format!("duplicate scope {value:?}: list each scope once"),
            ));
        } else {
            seen.push(value);
        }
    }
}

fn check_scope(scope: &str) -> Result<(), String> {
    if scope.is_empty() {
        return Err("scopes must not be empty".to_owned());
    }
    if scope.len() > 128 {
        return Err(format!("it is {} characters long", scope.len()));
    }
    if let Some(c) = scope
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':')))
    {
        return Err(if c.is_whitespace() {
            "it contains whitespace".to_owned()
        } else {
            format!("it contains {c:?}")
        });
    }
    if !scope.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err("it does not start with a letter".to_owned());
    }
    Ok(())
}

/// A name close to `name` for the error message: `snake_case` lower-case ASCII letters, digits
/// and `_`, starting at its first letter, trimmed to 64 bytes. (Whether a name is valid is the
/// runtime's rule, `cetp_provider::__private::is_valid_tool_name`, which the expansion calls.)
pub(crate) fn suggest_tool_name(name: &str) -> Option<String> {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
            prev_lower = true;
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
            prev_lower = false;
        }
    }
    let start = out.find(|c: char| c.is_ascii_lowercase())?;
    let mut out = out[start..].trim_end_matches('_').to_owned();
    out.truncate(64);
    Some(out.trim_end_matches('_').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest_tool_name("SearchNotes").as_deref(),
            Some("search_notes")
        );
        assert_eq!(
            suggest_tool_name("search-notes").as_deref(),
            Some("search_notes")
        );
        assert_eq!(suggest_tool_name("_get").as_deref(), Some("get"));
        assert_eq!(suggest_tool_name("HTTPGet").as_deref(), Some("httpget"));
        assert_eq!(suggest_tool_name("42").as_deref(), None);
        assert_eq!(
            suggest_tool_name(&"a".repeat(70)).map(|s| s.len()),
            Some(64)
        );
    }

    #[test]
    fn scopes() {
        assert!(check_scope("notes.read").is_ok());
        assert!(check_scope("com.example:notes-read_all").is_ok());
        assert!(check_scope("").is_err());
        assert!(check_scope("notes read").is_err());
        assert!(check_scope(".notes").is_err());
        assert!(check_scope("notes/read").is_err());
        assert!(check_scope(&"a".repeat(129)).is_err());
    }

    #[test]
    fn attr_parsing() {
        let attr = parse(quote::quote!(name = "x", scopes = ["a", "b"])).unwrap();
        assert_eq!(attr.name.unwrap().value(), "x");
        assert_eq!(attr.scopes.len(), 2);
        let err = parse(quote::quote!(nmae = "x")).err().unwrap();
        assert!(err.to_string().starts_with("unknown key `nmae`"));
        assert!(parse(quote::quote!(scopes = "a")).is_err());
        assert!(parse(quote::quote!(name = 3)).is_err());
        assert!(parse(quote::quote!(name = "a", name = "b")).is_err());
        assert!(parse(quote::quote!()).unwrap().name.is_none());
    }

    #[test]
    fn meta_parsing() {
        let attr = parse(quote::quote!(
            title = "Search notes",
            idempotent,
            open_world,
            long_running
        ))
        .unwrap();
        assert_eq!(attr.meta.title.unwrap().value(), "Search notes");
        assert!(attr.meta.idempotent && attr.meta.open_world && attr.meta.long_running);
        let plain = parse(quote::quote!(scopes = ["a"])).unwrap();
        assert!(!plain.meta.idempotent && !plain.meta.open_world && plain.meta.title.is_none());
        assert!(!plain.meta.long_running);
        for misnamed in [
            quote::quote!(execution = "sync_or_async"),
            quote::quote!(sync_or_async),
        ] {
            let err = parse(misnamed).err().unwrap().to_string();
            assert!(err.contains("#[tool(long_running)]"), "{err}");
        }
        assert!(parse(quote::quote!(long_running, long_running)).is_err());
        assert!(parse(quote::quote!(long_running = true)).is_err());
        for bad in [
            quote::quote!(idempotent = true),
            quote::quote!(idempotent, idempotent),
            quote::quote!(title = ""),
            quote::quote!(title = "a\nb"),
            quote::quote!(title = "a", title = "b"),
        ] {
            assert!(parse(bad.clone()).is_err(), "{bad}");
        }
        let err = parse(quote::quote!(destructive)).err().unwrap();
        assert!(err.to_string().contains("read-only by design"), "{err}");
    }
}
