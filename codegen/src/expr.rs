//! The constraint expression language: integers, field references, `len` (the buffer's
//! length), constants, `+ - * / & | << >>`, comparisons, `&& || !` and parentheses.
//! Values are 64-bit unsigned and every operation is checked: a sum that would wrap makes
//! the whole constraint fail (fail closed) instead of wrapping.

use crate::yaml::Pos;

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogAnd,
    LogOr,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
        }
    }

    /// Whether the operator compares two values (yielding a truth value).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// Whether the operator combines truth values.
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::LogAnd | BinOp::LogOr)
    }

    /// For a comparison, the relation that holds when it fails (`<=` fails as `>`).
    pub fn negated(self) -> BinOp {
        match self {
            BinOp::Eq => BinOp::Ne,
            BinOp::Ne => BinOp::Eq,
            BinOp::Lt => BinOp::Ge,
            BinOp::Le => BinOp::Gt,
            BinOp::Gt => BinOp::Le,
            BinOp::Ge => BinOp::Lt,
            other => other,
        }
    }

    fn precedence(self) -> u8 {
        match self {
            BinOp::LogOr => 1,
            BinOp::LogAnd => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::Or => 4,
            BinOp::And => 5,
            BinOp::Shl | BinOp::Shr => 6,
            BinOp::Add | BinOp::Sub => 7,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 8,
        }
    }
}

/// An expression tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// An integer literal.
    Num(u64),
    /// A dotted name: `len`, a constant, `header.field`, a record's `field`, `flags.BIT`.
    Ref(Vec<String>),
    /// A binary operation.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// Logical not.
    Not(Box<Expr>),
    /// A built-in function: `count(collection)`, `first(collection)`, `end(record)`,
    /// `if(condition, then, else)`.
    Call(String, Vec<Expr>),
    /// A field of a table's record at a computed index: `sections[header.shstrndx].offset`
    /// (the table's name, the index, the field's path within the record).
    At(String, Box<Expr>, Vec<String>),
    /// The index of a key lookup, only as the index of [`Expr::At`]: `records[tag == HEAD]`
    /// is the first record of the table whose field (the path, within the record) equals
    /// the value (an expression of the enclosing scope).
    Key(Vec<String>, Box<Expr>),
}

/// An expression with the text it came from and where.
#[derive(Clone, Debug)]
pub struct ExprAt {
    /// The tree.
    pub expr: Expr,
    /// The source text.
    pub text: String,
    /// Where the text starts in the schema.
    pub pos: Pos,
}

impl Expr {
    /// Every reference in the expression, in order.
    pub fn refs(&self) -> Vec<&[String]> {
        let mut out = Vec::new();
        self.collect_refs(&mut out);
        out
    }

    /// Every call on a name (`count(fmts)`, `first(pngs)`, `end(local)`): the function and
    /// the first part of its one reference argument, in order, repeats kept.
    pub fn named_calls(&self) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        self.collect_named_calls(&mut out);
        out
    }

    fn collect_named_calls<'a>(&'a self, out: &mut Vec<(&'a str, &'a str)>) {
        match self {
            Expr::Num(_) | Expr::Ref(_) => {}
            Expr::Not(x) | Expr::At(_, x, _) | Expr::Key(_, x) => x.collect_named_calls(out),
            Expr::Bin(_, l, r) => {
                l.collect_named_calls(out);
                r.collect_named_calls(out);
            }
            Expr::Call(f, args) => {
                if let [Expr::Ref(p)] = args.as_slice()
                    && let Some(n) = p.first()
                {
                    out.push((f.as_str(), n.as_str()));
                }
                args.iter().for_each(|a| a.collect_named_calls(out));
            }
        }
    }

    fn collect_refs<'a>(&'a self, out: &mut Vec<&'a [String]>) {
        match self {
            Expr::Num(_) => {}
            Expr::Ref(p) => out.push(p),
            Expr::Bin(_, l, r) => {
                l.collect_refs(out);
                r.collect_refs(out);
            }
            Expr::Not(e) => e.collect_refs(out),
            // `count(collection)`, `first(collection)` and `end(record)` name things, not
            // values: not references.
            Expr::Call(f, _) if f == "count" || f == "end" || POSITIONS.contains(&f.as_str()) => {}
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_refs(out)),
            // The table and the field name a record's part, not a value: only the index's
            // references are references (the field is resolved by `crate::check::index`).
            Expr::At(_, i, _) => i.collect_refs(out),
            // The key names a field of the searched record: only the value is a reference.
            Expr::Key(_, v) => v.collect_refs(out),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(u64),
    Ident(String),
    Op(BinOp),
    Not,
    LParen,
    RParen,
    Comma,
    LBracket,
    RBracket,
    /// `.field.part` right after a `]`.
    Field(Vec<String>),
}

fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while let Some(&c) = b.get(i) {
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while b
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
            {
                i += 1;
            }
            let lit = text.get(start..i).unwrap_or("").replace('_', "");
            let v = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
                u64::from_str_radix(h, 16)
            } else if let Some(bin) = lit.strip_prefix("0b") {
                u64::from_str_radix(bin, 2)
            } else {
                lit.parse::<u64>()
            }
            .map_err(|_| format!("`{lit}` is not a 64-bit unsigned integer"))?;
            out.push(Tok::Num(v));
            continue;
        }
        if c == b'.' && out.last() == Some(&Tok::RBracket) {
            let start = i + 1;
            i = start;
            while b
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
            {
                i += 1;
            }
            let path = text.get(start..i).unwrap_or("");
            if path.is_empty() || path.split('.').any(str::is_empty) {
                return Err("`]` must be followed by `.field`".to_string());
            }
            out.push(Tok::Field(path.split('.').map(str::to_string).collect()));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while b
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
            {
                i += 1;
            }
            out.push(Tok::Ident(text.get(start..i).unwrap_or("").to_string()));
            continue;
        }
        let two = text.get(i..i + 2).unwrap_or("");
        let (tok, n) = match two {
            "<<" => (Tok::Op(BinOp::Shl), 2),
            ">>" => (Tok::Op(BinOp::Shr), 2),
            "==" => (Tok::Op(BinOp::Eq), 2),
            "!=" => (Tok::Op(BinOp::Ne), 2),
            "<=" => (Tok::Op(BinOp::Le), 2),
            ">=" => (Tok::Op(BinOp::Ge), 2),
            "&&" => (Tok::Op(BinOp::LogAnd), 2),
            "||" => (Tok::Op(BinOp::LogOr), 2),
            _ => match c {
                b'+' => (Tok::Op(BinOp::Add), 1),
                b'-' => (Tok::Op(BinOp::Sub), 1),
                b'*' => (Tok::Op(BinOp::Mul), 1),
                b'/' => (Tok::Op(BinOp::Div), 1),
                b'%' => (Tok::Op(BinOp::Rem), 1),
                b',' => (Tok::Comma, 1),
                b'&' => (Tok::Op(BinOp::And), 1),
                b'|' => (Tok::Op(BinOp::Or), 1),
                b'<' => (Tok::Op(BinOp::Lt), 1),
                b'>' => (Tok::Op(BinOp::Gt), 1),
                b'!' => (Tok::Not, 1),
                b'(' => (Tok::LParen, 1),
                b')' => (Tok::RParen, 1),
                b'[' => (Tok::LBracket, 1),
                b']' => (Tok::RBracket, 1),
                other => return Err(format!("unexpected character `{}`", other as char)),
            },
        };
        out.push(tok);
        i += n;
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    i: usize,
}

impl Parser {
    /// `header.pairs[2].a` (the `[2]` just read): a field of an element of a fixed array of
    /// structs, by a constant index, as one reference whose indexed part is `pairs[2]`.
    /// More indices may follow (`header.grid[1].cells[0].v`).
    fn element_path(&mut self, s: &str, index: &Expr) -> Result<Expr, String> {
        let mut path: Vec<String> = s.split('.').map(str::to_string).collect();
        let mut index = index.clone();
        loop {
            let Expr::Num(k) = index else {
                return Err(format!(
                    "`{s}[...]`: an array of structs is indexed by a constant (`{s}[2].field`); only a table is indexed by an expression"
                ));
            };
            if let Some(last) = path.last_mut() {
                last.push_str(&format!("[{k}]"));
            }
            match self.next() {
                Some(Tok::Field(f)) => path.extend(f),
                _ => {
                    return Err(format!(
                        "`{s}[{k}]` must be followed by `.field` (a field of the element)"
                    ));
                }
            }
            if self.peek() != Some(&Tok::LBracket) {
                return Ok(Expr::Ref(path));
            }
            self.i += 1;
            index = self.expr(0)?;
            if self.next() != Some(Tok::RBracket) {
                return Err(format!(
                    "missing `]` after the index in `{}`",
                    path.join(".")
                ));
            }
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.i).cloned();
        self.i += 1;
        t
    }
    fn expr(&mut self, min_prec: u8) -> Result<Expr, String> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Op(op)) = self.peek().cloned() {
            let p = op.precedence();
            if p < min_prec {
                break;
            }
            self.i += 1;
            let rhs = self.expr(p + 1)?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }
    fn unary(&mut self) -> Result<Expr, String> {
        match self.next() {
            Some(Tok::Num(v)) => Ok(Expr::Num(v)),
            Some(Tok::Ident(s)) if self.peek() == Some(&Tok::LParen) => {
                self.i += 1;
                let mut args = Vec::new();
                if self.peek() == Some(&Tok::RParen) {
                    self.i += 1;
                } else {
                    loop {
                        args.push(self.expr(0)?);
                        match self.next() {
                            Some(Tok::Comma) => {}
                            Some(Tok::RParen) => break,
                            _ => return Err(format!("missing `)` after the arguments of `{s}`")),
                        }
                    }
                }
                Ok(Expr::Call(s, args))
            }
            Some(Tok::Ident(s)) if self.peek() == Some(&Tok::LBracket) => {
                self.i += 1;
                let index = self.expr(0)?;
                if self.next() != Some(Tok::RBracket) {
                    return Err(format!("missing `]` after the index of `{s}`"));
                }
                if s.contains('.') {
                    return self.element_path(&s, &index);
                }
                let index = match index {
                    Expr::Bin(BinOp::Eq, key, value) => match *key {
                        Expr::Ref(k) => Expr::Key(k, value),
                        _ => {
                            return Err(format!(
                                "`{s}[... == ...]` finds a record by its key: a field of the record left of `==` (`{s}[tag == VALUE].field`)"
                            ));
                        }
                    },
                    x => x,
                };
                match self.next() {
                    Some(Tok::Field(f)) if !s.contains('.') => Ok(Expr::At(s, Box::new(index), f)),
                    Some(Tok::Field(_)) => Err(format!(
                        "`{s}[...]`: only a table is indexed, by its name alone"
                    )),
                    _ => Err(format!(
                        "`{s}[...]` must be followed by `.field` (a field of the record)"
                    )),
                }
            }
            Some(Tok::Ident(s)) => Ok(Expr::Ref(s.split('.').map(str::to_string).collect())),
            Some(Tok::Not) => Ok(Expr::Not(Box::new(self.unary()?))),
            Some(Tok::LParen) => {
                let e = self.expr(0)?;
                match self.next() {
                    Some(Tok::RParen) => Ok(e),
                    _ => Err("missing `)`".to_string()),
                }
            }
            Some(Tok::RParen) => Err("unexpected `)`".to_string()),
            Some(Tok::Comma) => Err("unexpected `,`".to_string()),
            Some(Tok::LBracket | Tok::RBracket) => {
                Err("`[` and `]` index a table: `table[index].field`".to_string())
            }
            Some(Tok::Field(f)) => Err(format!("unexpected `.{}`", f.join("."))),
            Some(Tok::Op(op)) => Err(format!("unexpected operator `{}`", op.symbol())),
            None => Err("expression ends too early".to_string()),
        }
    }
}

/// Parse an expression.
pub fn parse(text: &str) -> Result<Expr, String> {
    let toks = lex(text)?;
    if toks.is_empty() {
        return Err("empty expression".to_string());
    }
    let mut p = Parser { toks, i: 0 };
    let e = p.expr(0)?;
    if p.i < p.toks.len() {
        return Err("unexpected text after the expression".to_string());
    }
    Ok(e)
}

/// The name of the `first(collection)` function in expressions (the positions construct).
/// `word(offset, width)`: the unsigned integer of `width` bytes at `offset` of the file, in
/// the file's byte order (an element of an array the file locates at run time).
pub const WORD: &str = "word";

pub const NAME: &str = "first";

/// The name of the `last(collection)` function (the positions construct): the index in its
/// stream of a collection's last record.
pub const LAST: &str = "last";

/// The name of the `first_body(collection)` function (the positions construct): where the
/// body of a collection's first record starts in the file (its layout's struct).
pub const FIRST_BODY: &str = "first_body";

/// The name of the `last_body(collection)` function: where its last record's body starts.
pub const LAST_BODY: &str = "last_body";

/// The positions construct's functions.
pub const POSITIONS: [&str; 4] = [NAME, LAST, FIRST_BODY, LAST_BODY];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_refs() {
        let e = parse("32 + header.region_count * 16 <= header.total_bytes").expect("parses");
        let Expr::Bin(BinOp::Le, l, _) = &e else {
            panic!("comparison at the top: {e:?}")
        };
        assert!(matches!(**l, Expr::Bin(BinOp::Add, _, _)));
        assert_eq!(e.refs().len(), 2);
        assert!(parse("a +").is_err());
        assert!(parse("(a").is_err());
        assert!(parse("0x1_0000 == 65536").is_ok());
    }

    #[test]
    fn calls_and_remainder() {
        let e = parse("count(inputs) == a % 4").expect("parses");
        let Expr::Bin(BinOp::Eq, l, r) = &e else {
            panic!("comparison at the top: {e:?}")
        };
        assert_eq!(
            **l,
            Expr::Call("count".into(), vec![Expr::Ref(vec!["inputs".into()])])
        );
        assert!(matches!(**r, Expr::Bin(BinOp::Rem, _, _)));
        // `count`'s argument names a collection, so it is not a field reference.
        assert_eq!(e.refs().len(), 1);
        let e = parse("if(header.version >= 3, 256, 0) + 92").expect("parses");
        assert!(
            matches!(&e, Expr::Bin(BinOp::Add, l, _) if matches!(**l, Expr::Call(ref f, ref a) if f == "if" && a.len() == 3))
        );
        assert_eq!(e.refs().len(), 1);
        assert!(parse("f(a,").is_err());
        assert!(parse("f(a b)").is_err());
    }

    #[test]
    fn computed_index() {
        let e = parse("sections[header.shstrndx + 1].offset + 4").expect("parses");
        let Expr::Bin(BinOp::Add, l, _) = &e else {
            panic!("sum at the top: {e:?}")
        };
        let Expr::At(t, i, f) = &**l else {
            panic!("an indexed field: {l:?}")
        };
        assert_eq!(
            (t.as_str(), f.as_slice()),
            ("sections", &["offset".to_string()][..])
        );
        assert!(matches!(**i, Expr::Bin(BinOp::Add, _, _)));
        // Only the index's references are references.
        assert_eq!(
            e.refs(),
            vec![&["header".to_string(), "shstrndx".to_string()][..]]
        );
        let e = parse("t[t[0].next].flags.BIT").expect("nests");
        assert!(matches!(&e, Expr::At(_, i, f) if matches!(**i, Expr::At(..)) && f.len() == 2));
        assert!(parse("t[0]").is_err());
        assert!(parse("t[0.x").is_err());
        assert!(parse("t[0].").is_err());
        assert!(parse("a.b[x].c").is_err());
        assert!(parse("a.b[0]").is_err());
        assert_eq!(
            parse("a.b[0].c").expect("an element's field"),
            Expr::Ref(vec!["a".into(), "b[0]".into(), "c".into()])
        );
        assert_eq!(
            parse("h.g[1].c[2].v + 1").expect("nested elements"),
            Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Ref(vec![
                    "h".into(),
                    "g[1]".into(),
                    "c[2]".into(),
                    "v".into()
                ])),
                Box::new(Expr::Num(1))
            )
        );
        assert!(parse("[0]").is_err());
    }

    #[test]
    fn key_lookup() {
        // `table[field == value]`: the index is the key, only the value's names are
        // references (the key is a field of the searched record).
        let e = parse("records[tag == HEAD + 1].offset").expect("parses");
        let Expr::At(t, i, f) = &e else {
            panic!("an indexed field: {e:?}")
        };
        assert_eq!(
            (t.as_str(), f.as_slice()),
            ("records", &["offset".to_string()][..])
        );
        assert!(
            matches!(&**i, Expr::Key(k, v) if k == &["tag".to_string()] && matches!(**v, Expr::Bin(BinOp::Add, _, _)))
        );
        assert_eq!(e.refs(), vec![&["HEAD".to_string()][..]]);
        // Other comparisons stay an index (which the checker refuses as a condition).
        assert!(
            matches!(parse("t[a != 1].x").expect("parses"), Expr::At(_, i, _) if matches!(*i, Expr::Bin(BinOp::Ne, _, _)))
        );
        assert!(parse("t[1 == a].x").is_err());
        assert!(parse("t[(a) == 1].x").is_ok());
    }
}
