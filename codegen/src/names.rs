//! Naming helpers shared by the checker (which refuses clashing generated names) and the
//! emitters: schema names to generated Rust names.

pub(crate) fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' || c == '-' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}
