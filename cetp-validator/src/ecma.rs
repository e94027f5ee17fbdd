//! ECMA-262 regular expressions, the dialect of JSON Schema's `pattern` and `regex` format: a
//! syntax check, and a translation into the syntax of [`regex_lite`], whose searches take time
//! linear in the input.
//!
//! The grammar is that of a pattern with the `u` flag (Unicode mode, named groups, the pattern
//! modifiers `(?ims-ims:…)`), plus a backslash before any character that is neither a letter nor
//! a digit (as patterns without the `u` flag allow). `\p{…}` property names are checked for
//! their shape only.
//!
//! The translation keeps ECMA-262's meaning where `regex_lite` differs: `\s` is ECMA-262's
//! white space and line terminators, `.` stops at every line terminator, and case-insensitive
//! groups fold non-ASCII letters too. Constructs a linear-time engine cannot run
//! (backreferences, lookaround) or that `regex_lite` has no tables for (`\p{…}`) are refused.

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::OnceLock;

/// Why a pattern cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PatternError {
    /// The text is not an ECMA-262 regular expression.
    Syntax,
    /// Valid ECMA-262, but it needs what the engine does not have: names the construct.
    Unsupported(&'static str),
    /// Translated, but `regex_lite` refused it (a size or nesting limit).
    Engine(String),
}

/// Whether `pattern` is an ECMA-262 regular expression (the `regex` format). Never recurses,
/// so any nesting depth is safe to check.
pub(crate) fn is_valid(pattern: &str) -> bool {
    Parser::new(pattern, false).parse().is_ok()
}

/// Compiles an ECMA-262 `pattern` into a `regex_lite::Regex` with the same matches.
pub(crate) fn compile(pattern: &str) -> Result<regex_lite::Regex, PatternError> {
    let ast = Parser::new(pattern, true)
        .parse()?
        .expect("a parser that builds returns a tree");
    let mut out = String::with_capacity(pattern.len() * 2);
    Translator.emit(&ast, Flags::default(), 0, &mut out)?;
    regex_lite::Regex::new(&out).map_err(|e| PatternError::Engine(e.to_string()))
}

/// The deepest group nesting [`compile`] translates.
const MAX_DEPTH: usize = 64;

/// `\d`, `\s`, `\w` and their complements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Perl {
    Digit(bool),
    Space(bool),
    Word(bool),
}

impl Perl {
    fn of(c: char) -> Option<Perl> {
        Some(match c {
            'd' => Perl::Digit(false),
            'D' => Perl::Digit(true),
            's' => Perl::Space(false),
            'S' => Perl::Space(true),
            'w' => Perl::Word(false),
            'W' => Perl::Word(true),
            _ => return None,
        })
    }

    /// The ranges of the positive class and whether it is negated.
    fn ranges(self) -> (&'static [(u32, u32)], bool) {
        match self {
            Perl::Digit(negated) => (DIGIT, negated),
            Perl::Space(negated) => (SPACE, negated),
            Perl::Word(negated) => (WORD, negated),
        }
    }
}

const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// ECMA-262 `WhiteSpace` and `LineTerminator`: tab to carriage return, space, every `Zs`
/// character, the byte order mark, and U+2028/U+2029.
const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
/// What `.` does not match outside `s` mode: the line terminators.
const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

#[derive(Debug)]
enum ClassItem {
    Range(u32, u32),
    Perl(Perl),
}

/// The pattern as a tree (built only for [`compile`]).
#[derive(Debug)]
enum Ast {
    Alternation(Vec<Ast>),
    Concat(Vec<Ast>),
    Char(u32),
    Class(bool, Vec<ClassItem>),
    Dot,
    LineStart,
    LineEnd,
    WordBoundary(bool),
    Group(Box<Ast>),
    Modified(Flags, Flags, Box<Ast>),
    Repeat(Box<Ast>, u32, Option<u32>),
    Unsupported(&'static str),
}

/// The `i`, `m` and `s` flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
}

/// What the cursor follows, which decides whether a quantifier may come next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    Start,
    Atom,
    Assertion,
    Quantifier,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GroupKind {
    Plain,
    Lookaround,
    Modified(Flags, Flags),
}

/// An open group (the pattern itself is the outermost).
struct Frame {
    kind: GroupKind,
    /// Finished alternatives and the one being read (only when building).
    alternatives: Vec<Ast>,
    current: Vec<Ast>,
    /// Group names of the alternative being read, inner groups' included.
    names_here: Vec<String>,
    /// Group names of the finished alternatives.
    names_before: Vec<String>,
}

impl Frame {
    fn new(kind: GroupKind) -> Self {
        Frame {
            kind,
            alternatives: Vec::new(),
            current: Vec::new(),
            names_here: Vec::new(),
            names_before: Vec::new(),
        }
    }

    fn finish_alternative(&mut self, build: bool) {
        if build {
            let current = std::mem::take(&mut self.current);
            self.alternatives.push(concat(current));
        }
    }

    fn into_ast(mut self) -> Ast {
        self.finish_alternative(true);
        let mut alternatives = self.alternatives;
        if alternatives.len() == 1 {
            alternatives.pop().expect("one alternative")
        } else {
            Ast::Alternation(alternatives)
        }
    }
}

fn concat(mut items: Vec<Ast>) -> Ast {
    if items.len() == 1 {
        items.pop().expect("one item")
    } else {
        Ast::Concat(items)
    }
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    build: bool,
    after: After,
    frames: Vec<Frame>,
    groups: u64,
    largest_backreference: u64,
    referenced: Vec<String>,
    declared: HashSet<String>,
    /// How many open groups have each name in the alternative being read: a name may not be
    /// declared twice in one alternative (names may repeat across alternatives).
    active: HashMap<String, usize>,
}

type Parsed<T> = Result<T, PatternError>;

impl<'a> Parser<'a> {
    fn new(text: &'a str, build: bool) -> Self {
        Parser {
            text,
            at: 0,
            build,
            after: After::Start,
            frames: vec![Frame::new(GroupKind::Plain)],
            groups: 0,
            largest_backreference: 0,
            referenced: Vec::new(),
            declared: HashSet::new(),
            active: HashMap::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        self.text[self.at..].chars().nth(1)
    }

    fn next(&mut self) -> Parsed<char> {
        let c = self.peek().ok_or(PatternError::Syntax)?;
        self.at += c.len_utf8();
        Ok(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Parsed<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(PatternError::Syntax)
        }
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("the pattern frame stays")
    }

    /// Adds a node to the alternative being read.
    fn push(&mut self, ast: impl FnOnce() -> Ast, after: After) {
        if self.build {
            let ast = ast();
            self.frame().current.push(ast);
        }
        self.after = after;
    }

    fn parse(mut self) -> Parsed<Option<Ast>> {
        while let Some(c) = self.peek() {
            self.at += c.len_utf8();
            match c {
                '|' => {
                    let build = self.build;
                    let frame = self.frames.last_mut().expect("the pattern frame stays");
                    frame.finish_alternative(build);
                    for name in frame.names_here.drain(..) {
                        release(&mut self.active, &name);
                        frame.names_before.push(name);
                    }
                    self.after = After::Start;
                }
                '(' => self.open_group()?,
                ')' => self.close_group()?,
                '*' => self.quantifier(0, None)?,
                '+' => self.quantifier(1, None)?,
                '?' => self.quantifier(0, Some(1))?,
                '{' => {
                    let (min, max) = self.counts()?;
                    self.quantifier(min, max)?;
                }
                '}' | ']' => return Err(PatternError::Syntax),
                '^' => self.push(|| Ast::LineStart, After::Assertion),
                '$' => self.push(|| Ast::LineEnd, After::Assertion),
                '.' => self.push(|| Ast::Dot, After::Atom),
                '\\' => self.escape()?,
                '[' => {
                    let class = self.class()?;
                    self.push(|| class, After::Atom);
                }
                c => self.push(|| Ast::Char(c as u32), After::Atom),
            }
        }
        if self.frames.len() != 1 || self.largest_backreference > self.groups {
            return Err(PatternError::Syntax);
        }
        if self.referenced.iter().any(|n| !self.declared.contains(n)) {
            return Err(PatternError::Syntax);
        }
        let root = self.frames.pop().expect("the pattern frame");
        Ok(self.build.then(|| root.into_ast()))
    }

    /// A quantifier was read: it must follow an atom, and may be lazy (`?`).
    fn quantifier(&mut self, min: u32, max: Option<u32>) -> Parsed<()> {
        if self.after != After::Atom {
            return Err(PatternError::Syntax);
        }
        self.eat('?');
        self.after = After::Quantifier;
        if self.build {
            let frame = self.frame();
            let inner = frame.current.pop().expect("an atom precedes a quantifier");
            frame.current.push(Ast::Repeat(Box::new(inner), min, max));
        }
        Ok(())
    }

    /// `{n}`, `{n,}` or `{n,m}` (`n <= m`), the brace read. Counts past `u32` saturate.
    fn counts(&mut self) -> Parsed<(u32, Option<u32>)> {
        let low = self.digits()?;
        let min = count(low);
        let max = if self.eat(',') {
            if self.peek() == Some('}') {
                None
            } else {
                let high = self.digits()?;
                if decimal_greater(low, high) {
                    return Err(PatternError::Syntax);
                }
                Some(count(high))
            }
        } else {
            Some(min)
        };
        self.expect('}')?;
        Ok((min, max))
    }

    fn digits(&mut self) -> Parsed<&'a str> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        if self.at == start {
            return Err(PatternError::Syntax);
        }
        Ok(&self.text[start..self.at])
    }

    /// After `(`.
    fn open_group(&mut self) -> Parsed<()> {
        let kind = if self.eat('?') {
            match self.next()? {
                ':' => GroupKind::Plain,
                '=' | '!' => GroupKind::Lookaround,
                '<' if matches!(self.peek(), Some('=' | '!')) => {
                    self.at += 1;
                    GroupKind::Lookaround
                }
                '<' => {
                    let name = self.group_name()?;
                    if self.active.get(&name).is_some_and(|n| *n > 0) {
                        return Err(PatternError::Syntax);
                    }
                    self.declared.insert(name.clone());
                    *self.active.entry(name.clone()).or_default() += 1;
                    self.frame().names_here.push(name);
                    self.groups += 1;
                    GroupKind::Plain
                }
                first => {
                    let (add, remove) = self.modifiers(first)?;
                    GroupKind::Modified(add, remove)
                }
            }
        } else {
            self.groups += 1;
            GroupKind::Plain
        };
        self.frames.push(Frame::new(kind));
        self.after = After::Start;
        Ok(())
    }

    /// `ims-ims:` after `(?`, the first flag read: at least one flag, none twice.
    fn modifiers(&mut self, first: char) -> Parsed<(Flags, Flags)> {
        let mut add = Flags::default();
        let mut remove = Flags::default();
        let mut seen = 0;
        let mut removing = false;
        let mut c = first;
        while c != ':' {
            let flags = if removing { &mut remove } else { &mut add };
            let flag = match c {
                'i' => &mut flags.ignore_case,
                'm' => &mut flags.multiline,
                's' => &mut flags.dot_all,
                '-' if !removing => {
                    removing = true;
                    c = self.next()?;
                    continue;
                }
                _ => return Err(PatternError::Syntax),
            };
            *flag = true;
            seen += 1;
            c = self.next()?;
        }
        let twice = (add.ignore_case && remove.ignore_case)
            || (add.multiline && remove.multiline)
            || (add.dot_all && remove.dot_all);
        let count = [add, remove]
            .iter()
            .map(|f| usize::from(f.ignore_case) + usize::from(f.multiline) + usize::from(f.dot_all))
            .sum::<usize>();
        if seen == 0 || twice || count != seen {
            return Err(PatternError::Syntax);
        }
        Ok((add, remove))
    }

    /// After `)`.
    fn close_group(&mut self) -> Parsed<()> {
        if self.frames.len() == 1 {
            return Err(PatternError::Syntax);
        }
        let mut frame = self.frames.pop().expect("an open group");
        for name in &frame.names_before {
            *self.active.entry(name.clone()).or_default() += 1;
        }
        let parent = self.frame();
        parent.names_here.append(&mut frame.names_here);
        parent.names_here.append(&mut frame.names_before);
        let after = match frame.kind {
            GroupKind::Lookaround => After::Assertion,
            GroupKind::Plain | GroupKind::Modified(..) => After::Atom,
        };
        self.push(
            || match frame.kind {
                GroupKind::Lookaround => Ast::Unsupported("lookaround such as `(?=…)` or `(?<!…)`"),
                GroupKind::Plain => Ast::Group(Box::new(frame.into_ast())),
                GroupKind::Modified(add, remove) => {
                    Ast::Modified(add, remove, Box::new(frame.into_ast()))
                }
            },
            after,
        );
        Ok(())
    }

    /// `name>` of a group name or a named backreference, `<` read.
    fn group_name(&mut self) -> Parsed<String> {
        let mut name = String::new();
        loop {
            let c = match self.next()? {
                '>' => break,
                '\\' => {
                    self.expect('u')?;
                    char::from_u32(self.unicode_escape()?).ok_or(PatternError::Syntax)?
                }
                c => c,
            };
            let allowed = if name.is_empty() {
                c.is_alphabetic() || matches!(c, '$' | '_')
            } else {
                c.is_alphanumeric() || matches!(c, '$' | '_' | '\u{200C}' | '\u{200D}')
            };
            if !allowed {
                return Err(PatternError::Syntax);
            }
            name.push(c);
        }
        if name.is_empty() {
            return Err(PatternError::Syntax);
        }
        Ok(name)
    }

    /// After `\` outside a class.
    fn escape(&mut self) -> Parsed<()> {
        let c = self.next()?;
        match c {
            'b' | 'B' => self.push(|| Ast::WordBoundary(c == 'B'), After::Assertion),
            'p' | 'P' => {
                self.property()?;
                self.push(
                    || Ast::Unsupported("Unicode property escapes such as `\\p{L}`"),
                    After::Atom,
                );
            }
            'k' => {
                self.expect('<')?;
                let name = self.group_name()?;
                self.referenced.push(name);
                self.push(
                    || Ast::Unsupported("backreferences such as `\\1` or `\\k<name>`"),
                    After::Atom,
                );
            }
            '1'..='9' => {
                self.at -= 1;
                let number = self.digits()?.parse().unwrap_or(u64::MAX);
                self.largest_backreference = self.largest_backreference.max(number);
                self.push(
                    || Ast::Unsupported("backreferences such as `\\1` or `\\k<name>`"),
                    After::Atom,
                );
            }
            c => match Perl::of(c) {
                Some(perl) => self.push(
                    || Ast::Class(false, vec![ClassItem::Perl(perl)]),
                    After::Atom,
                ),
                None => {
                    let code = self.character_escape(c)?;
                    self.push(|| Ast::Char(code), After::Atom);
                }
            },
        }
        Ok(())
    }

    /// A `CharacterEscape` whose first character `c` was read: the code point it stands for.
    fn character_escape(&mut self, c: char) -> Parsed<u32> {
        Ok(match c {
            't' => 0x09,
            'n' => 0x0A,
            'v' => 0x0B,
            'f' => 0x0C,
            'r' => 0x0D,
            'c' => {
                let letter = self.next()?;
                if !letter.is_ascii_alphabetic() {
                    return Err(PatternError::Syntax);
                }
                letter as u32 % 32
            }
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => 0,
            'x' => self.hex()? * 16 + self.hex()?,
            'u' => self.unicode_escape()?,
            c if !c.is_alphanumeric() => c as u32,
            _ => return Err(PatternError::Syntax),
        })
    }

    fn hex(&mut self) -> Parsed<u32> {
        self.next()?.to_digit(16).ok_or(PatternError::Syntax)
    }

    /// After `\u`: `{X…}` (at most U+10FFFF) or four hex digits, a lead surrogate followed by
    /// `\u` and a trail surrogate standing for one code point.
    fn unicode_escape(&mut self) -> Parsed<u32> {
        if self.eat('{') {
            let mut value: u32 = 0;
            let mut digits = 0;
            while !self.eat('}') {
                value = value.saturating_mul(16).saturating_add(self.hex()?);
                digits += 1;
            }
            if digits == 0 || value > 0x10_FFFF {
                return Err(PatternError::Syntax);
            }
            return Ok(value);
        }
        let lead = self.hex4()?;
        if (0xD800..0xDC00).contains(&lead) && self.text[self.at..].starts_with("\\u") {
            let back = self.at;
            self.at += 2;
            match self.hex4() {
                Ok(trail) if (0xDC00..0xE000).contains(&trail) => {
                    return Ok(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00));
                }
                _ => self.at = back,
            }
        }
        Ok(lead)
    }

    fn hex4(&mut self) -> Parsed<u32> {
        let mut value = 0;
        for _ in 0..4 {
            value = value * 16 + self.hex()?;
        }
        Ok(value)
    }

    /// `{Name}` or `{Name=Value}` after `\p` / `\P`.
    fn property(&mut self) -> Parsed<()> {
        self.expect('{')?;
        self.property_word()?;
        if self.eat('=') {
            self.property_word()?;
        }
        self.expect('}')
    }

    fn property_word(&mut self) -> Parsed<()> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.at += 1;
        }
        if self.at == start {
            return Err(PatternError::Syntax);
        }
        Ok(())
    }

    /// A character class, `[` read.
    fn class(&mut self) -> Parsed<Ast> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        let mut unsupported = None;
        loop {
            if self.eat(']') {
                break;
            }
            let first = self.class_atom(&mut unsupported)?;
            // A dash right before the closing bracket is a literal dash.
            if self.peek() == Some('-') && self.peek_second() != Some(']') {
                self.at += 1;
                let last = self.class_atom(&mut unsupported)?;
                match (first, last) {
                    (Some(ClassItem::Range(low, _)), Some(ClassItem::Range(high, _)))
                        if low <= high =>
                    {
                        if self.build {
                            items.push(ClassItem::Range(low, high));
                        }
                    }
                    _ => return Err(PatternError::Syntax),
                }
            } else if let (true, Some(item)) = (self.build, first) {
                items.push(item);
            }
        }
        Ok(match unsupported {
            Some(what) => Ast::Unsupported(what),
            None => Ast::Class(negated, items),
        })
    }

    /// One class member: a code point (as a one-point range), a class escape, or `None` for
    /// `\p{…}` (recorded in `unsupported`).
    fn class_atom(&mut self, unsupported: &mut Option<&'static str>) -> Parsed<Option<ClassItem>> {
        let c = self.next()?;
        if c != '\\' {
            return Ok(Some(ClassItem::Range(c as u32, c as u32)));
        }
        let point = match self.next()? {
            'b' => 0x08,
            '-' => '-' as u32,
            'p' | 'P' => {
                self.property()?;
                *unsupported = Some("Unicode property escapes such as `\\p{L}`");
                return Ok(None);
            }
            c => match Perl::of(c) {
                Some(perl) => return Ok(Some(ClassItem::Perl(perl))),
                None => self.character_escape(c)?,
            },
        };
        Ok(Some(ClassItem::Range(point, point)))
    }
}

fn release(active: &mut HashMap<String, usize>, name: &str) {
    if let Some(count) = active.get_mut(name) {
        *count = count.saturating_sub(1);
    }
}

/// A repetition count, saturating at `u32::MAX`.
fn count(digits: &str) -> u32 {
    digits.parse().unwrap_or(u32::MAX)
}

/// Whether the decimal `left` is greater than the decimal `right`, at any length.
fn decimal_greater(left: &str, right: &str) -> bool {
    let left = left.trim_start_matches('0');
    let right = right.trim_start_matches('0');
    (left.len(), left) > (right.len(), right)
}

/// Writes an [`Ast`] in `regex_lite` syntax.
struct Translator;

impl Translator {
    fn emit(&self, ast: &Ast, flags: Flags, depth: usize, out: &mut String) -> Parsed<()> {
        if depth > MAX_DEPTH {
            return Err(PatternError::Unsupported("groups nested more than 64 deep"));
        }
        match ast {
            Ast::Alternation(alternatives) => {
                out.push_str("(?:");
                for (i, alternative) in alternatives.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    self.emit(alternative, flags, depth + 1, out)?;
                }
                out.push(')');
            }
            Ast::Concat(items) => {
                for item in items {
                    self.emit(item, flags, depth, out)?;
                }
            }
            Ast::Char(point) => {
                let ranges = self.fold(vec![(*point, *point)], flags)?;
                write_set(&ranges, false, out);
            }
            Ast::Class(negated, items) => {
                let mut ranges = Vec::new();
                for item in items {
                    match item {
                        ClassItem::Range(low, high) => ranges.push((*low, *high)),
                        ClassItem::Perl(perl) => {
                            let (set, negated) = perl.ranges();
                            let set = self.fold(set.to_vec(), flags)?;
                            if negated {
                                ranges.extend(complement(&set));
                            } else {
                                ranges.extend(set);
                            }
                        }
                    }
                }
                let ranges = self.fold(ranges, flags)?;
                write_set(&ranges, *negated, out);
            }
            Ast::Dot if flags.dot_all => out.push_str("(?s:.)"),
            Ast::Dot => write_set(LINE_TERMINATORS, true, out),
            Ast::LineStart if flags.multiline => out.push_str("(?m:^)"),
            Ast::LineStart => out.push('^'),
            Ast::LineEnd if flags.multiline => out.push_str("(?m:$)"),
            Ast::LineEnd => out.push('$'),
            Ast::WordBoundary(false) => out.push_str("\\b"),
            Ast::WordBoundary(true) => out.push_str("\\B"),
            Ast::Group(inner) => {
                out.push_str("(?:");
                self.emit(inner, flags, depth + 1, out)?;
                out.push(')');
            }
            Ast::Modified(add, remove, inner) => {
                let flags = Flags {
                    ignore_case: (flags.ignore_case || add.ignore_case) && !remove.ignore_case,
                    multiline: (flags.multiline || add.multiline) && !remove.multiline,
                    dot_all: (flags.dot_all || add.dot_all) && !remove.dot_all,
                };
                out.push_str("(?:");
                self.emit(inner, flags, depth + 1, out)?;
                out.push(')');
            }
            Ast::Repeat(inner, min, max) => {
                out.push_str("(?:");
                self.emit(inner, flags, depth + 1, out)?;
                out.push(')');
                match (min, max) {
                    (0, None) => out.push('*'),
                    (1, None) => out.push('+'),
                    (0, Some(1)) => out.push('?'),
                    (min, None) => {
                        let _ = write!(out, "{{{min},}}");
                    }
                    (min, Some(max)) => {
                        let _ = write!(out, "{{{min},{max}}}");
                    }
                }
            }
            Ast::Unsupported(what) => return Err(PatternError::Unsupported(what)),
        }
        Ok(())
    }

    /// `ranges`, plus under `i` every character that folds with one of them; sorted and merged.
    /// Surrogate code points, which no text holds, are left out.
    fn fold(&self, ranges: Vec<(u32, u32)>, flags: Flags) -> Parsed<Vec<(u32, u32)>> {
        let mut ranges = without_surrogates(ranges);
        if flags.ignore_case {
            static FOLDS: OnceLock<Folds> = OnceLock::new();
            let folds = FOLDS.get_or_init(Folds::new);
            let mut extra = Vec::new();
            for &(low, high) in &ranges {
                folds.add_partners(low, high, &mut extra);
            }
            ranges.extend(extra.into_iter().map(|c| (c, c)));
        }
        Ok(merge(ranges))
    }
}

/// Case partners (built once, when a pattern first uses `i`): for each character with another case, the characters it maps to or from by
/// the standard library's one-character case mappings (Unicode simple case folding but for a
/// few special cases).
struct Folds {
    /// Sorted pairs (character, partner); each relation appears in both directions.
    pairs: Vec<(u32, u32)>,
}

impl Folds {
    fn new() -> Self {
        let mut pairs = Vec::new();
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            for mapped in [single(c.to_lowercase()), single(c.to_uppercase())]
                .into_iter()
                .flatten()
            {
                if mapped != c {
                    pairs.push((c as u32, mapped as u32));
                    pairs.push((mapped as u32, c as u32));
                }
            }
        }
        let mut pairs = sorted(pairs);
        pairs.dedup();
        Folds { pairs }
    }

    /// Adds to `out` the characters reachable from `low..=high` through case partners.
    fn add_partners(&self, low: u32, high: u32, out: &mut Vec<u32>) {
        let start = self.pairs.partition_point(|&(c, _)| c < low);
        let mut todo: Vec<u32> = self.pairs[start..]
            .iter()
            .take_while(|&&(c, _)| c <= high)
            .map(|&(_, partner)| partner)
            .collect();
        while let Some(c) = todo.pop() {
            if (low..=high).contains(&c) || out.contains(&c) {
                continue;
            }
            out.push(c);
            let start = self.pairs.partition_point(|&(d, _)| d < c);
            todo.extend(
                self.pairs[start..]
                    .iter()
                    .take_while(|&&(d, _)| d == c)
                    .map(|&(_, partner)| partner),
            );
        }
    }
}

fn single(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let first = chars.next()?;
    chars.next().is_none().then_some(first)
}

fn without_surrogates(ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len());
    for (low, high) in ranges {
        if high < 0xD800 || low > 0xDFFF {
            out.push((low, high));
            continue;
        }
        if low < 0xD800 {
            out.push((low, 0xD7FF));
        }
        if high > 0xDFFF {
            out.push((0xE000, high));
        }
    }
    out
}

/// `items` in ascending order. A heap sort: `slice::sort_unstable` compiles some 7 KiB of code
/// for each element type, `BinaryHeap` a few hundred bytes, for the same result (equal pairs
/// are identical, so which of two comes first does not show).
fn sorted(items: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    BinaryHeap::from(items).into_sorted_vec()
}

/// Sorts and merges overlapping or adjacent ranges.
fn merge(ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let ranges = sorted(ranges);
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (low, high) in ranges {
        match out.last_mut() {
            Some(last) if low <= last.1.saturating_add(1) => last.1 = last.1.max(high),
            _ => out.push((low, high)),
        }
    }
    out
}

/// The code points (surrogates aside) outside the sorted, merged `ranges`.
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0;
    for &(low, high) in ranges {
        if low > next {
            out.push((next, low - 1));
        }
        next = high + 1;
    }
    if next <= 0x10_FFFF {
        out.push((next, 0x10_FFFF));
    }
    without_surrogates(out)
}

/// A class matching `ranges` (or everything else when `negated`); an empty set, which no
/// `regex_lite` class can write, as an assertion that never holds.
fn write_set(ranges: &[(u32, u32)], negated: bool, out: &mut String) {
    let ranges = if negated {
        complement(&merge(ranges.to_vec()))
    } else {
        ranges.to_vec()
    };
    if ranges.is_empty() {
        out.push_str("(?:\\b\\B)");
        return;
    }
    if let [(low, high)] = ranges.as_slice() {
        if low == high {
            write_point(*low, out);
            return;
        }
    }
    out.push('[');
    for (low, high) in ranges {
        write_point(low, out);
        if high > low {
            out.push('-');
            write_point(high, out);
        }
    }
    out.push(']');
}

/// One code point: letters and digits as themselves, anything else as `\x{…}`.
fn write_point(point: u32, out: &mut String) {
    match char::from_u32(point) {
        Some(c) if c.is_ascii_alphanumeric() => out.push(c),
        _ => {
            let _ = write!(out, "\\x{{{point:X}}}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        compile(pattern)
            .unwrap_or_else(|e| panic!("{pattern}: {e:?}"))
            .is_match(text)
    }

    #[test]
    fn the_syntax_is_ecma_262_with_the_u_flag() {
        for valid in [
            "",
            "a|",
            "()",
            "[]",
            "[^]",
            "[a-]",
            "[---]",
            "[\\d-]",
            "[\\b\\-\\]]",
            "(?<name>x)\\k<name>",
            "(?<n>a)|(?<n>b)",
            "(?<\\u0061>x)\\k<a>",
            "(?i:a)(?-i:b)(?im-s:c)",
            "(a)\\1",
            "\\u{1F600}\\uD83D\\uDE00",
            "\\p{Script=Greek}\\P{Lu}",
            "a*?b+?c??d{2}?e{2,}?f{2,3}?",
            "a{99999999999999999999,99999999999999999999}",
            "\\/\\:\\ \\§",
            "(?<=a+)b(?!c)",
        ] {
            assert!(is_valid(valid), "{valid}");
        }
        for invalid in [
            "(",
            ")",
            "[",
            "]",
            "}",
            "{",
            "a{",
            "a{2,1}",
            "a{,5}",
            "*a",
            "a**",
            "^*",
            "\\b+",
            "(?=a)*",
            "\\a",
            "\\é",
            "\\00",
            "\\x4",
            "\\u{110000}",
            "\\c1",
            "\\pL",
            "\\2(a)",
            "\\k<nope>",
            "(?<a>x)(?<a>y)",
            "(?<a>x)(?:y|(?<a>z))",
            "(?i)abc",
            "(?i-i:a)",
            "(?-:a)",
            "(?P<n>a)",
            "[z-a]",
            "[\\w-a]",
            "[\\B]",
            "\\z",
        ] {
            assert!(!is_valid(invalid), "{invalid}");
        }
    }

    #[test]
    fn matching_follows_ecma_262_not_the_engine_defaults() {
        assert!(matches(r"^\d{3}-[a-z]+$", "123-abc"));
        assert!(!matches(r"^\d$", "٣"), "\\d is ASCII");
        assert!(matches(r"^\s$", "\u{2003}"), "\\s includes every Zs");
        assert!(matches(r"^\S$", "x"));
        assert!(!matches(r"^.$", "\r"), ". stops at line terminators");
        assert!(matches(r"^(?s:.)$", "\r"));
        assert!(matches(r"^\w+$", "snake_case9"));
        assert!(!matches(r"^\w$", "é"));
        assert!(matches("^café$", "café"));
        assert!(matches("^[à-ÿ]+$", "éü"));
        assert!(matches("🌱", "a🌱b"), "a search, not a full match");
        assert!(matches(r"^\u{1F331}$", "🌱"));
        assert!(matches(r"^\uD83C\uDF31$", "🌱"));
        assert!(matches(r"^[^]$", "\n"));
        assert!(!matches(r"[]", "anything"));
        assert!(matches(r"^\x41\u0042\cC$", "AB\u{3}"));
        assert!(matches(r"^a{2,3}$", "aaa"));
        assert!(!matches(r"^a{2,3}$", "aaaa"));
        assert!(matches(r"^(?:ab|cd)+$", "abcdab"));
        assert!(matches(r"^[\-.]$", "-"));
        assert!(matches(r"^\.\*\[$", ".*["));
    }

    #[test]
    fn case_insensitive_groups_fold_beyond_ascii() {
        assert!(matches("^(?i:straße)$", "STRAßE"));
        assert!(matches("^(?i:é)$", "É"));
        assert!(matches("^(?i:[à-þ])$", "Ç"));
        assert!(
            matches("^(?i:k)$", "\u{212A}"),
            "the Kelvin sign folds with k"
        );
        assert!(!matches("^(?i:[^é])$", "É"));
        assert!(matches("^(?i:a(?-i:b))$", "Ab"));
        assert!(!matches("^(?i:a(?-i:b))$", "AB"));
    }

    #[test]
    fn what_a_linear_engine_cannot_run_is_named() {
        for (pattern, what) in [
            (r"^(a|a)+\1b$", "backreferences"),
            (r"(?<n>a)\k<n>", "backreferences"),
            (r"(?=a)b", "lookaround"),
            (r"a(?<!b)", "lookaround"),
            (r"\p{L}", "Unicode property"),
            (r"[\p{L}]", "Unicode property"),
        ] {
            match compile(pattern) {
                Err(PatternError::Unsupported(named)) => assert!(named.contains(what), "{named}"),
                other => panic!("{pattern}: {other:?}"),
            }
        }
        assert_eq!(compile("[").err(), Some(PatternError::Syntax));
        assert!(matches!(
            compile(
                "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))"
            ),
            Err(PatternError::Unsupported(_))
        ));
    }

    #[test]
    fn many_group_names_are_checked_in_linear_time() {
        let names: String = (0..5000).map(|i| format!("(?<n{i}>a)")).collect();
        assert!(is_valid(&names));
        assert!(!is_valid(&format!("{names}(?<n7>b)")));
        let alternatives: String = (0..5000).map(|_| "(?<n>a)|").collect();
        assert!(is_valid(&alternatives));
        assert!(is_valid("(?:(?<n>a)|(?<n>b))\\k<n>") && !is_valid("(?<n>a)(?:(?<n>b)|c)"));
    }

    #[test]
    fn deep_nesting_is_checked_without_recursion() {
        let deep = format!("{}a{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(is_valid(&deep));
        assert!(!is_valid(&deep[1..]));
    }
}
