//! The module-level names a generated module holds, for the constructs whose emitters add
//! items next to the schema's (`commands.rs`, `regs.rs`): the emitter's fixed items, the
//! schema's constants and types, then each name a construct claims, refused when taken.

use crate::diag::Diags;
use crate::schema::top::Schema;
use crate::yaml::Pos;

/// The names taken so far: (name, where, who).
pub(crate) struct Taken(Vec<(String, Pos, String)>);

impl Taken {
    /// The names a module starts with: the emitter's fixed items (`reserved`, held by
    /// `emitter`), the schema's constants, enums, flags, bit-field words and structs.
    pub(crate) fn module(schema: &Schema, reserved: &[&str], emitter: &str) -> Self {
        let mut taken: Vec<(String, Pos, String)> = reserved
            .iter()
            .map(|n| ((*n).to_string(), Pos::default(), emitter.to_string()))
            .collect();
        for c in &schema.constants {
            taken.push((
                c.name.text.clone(),
                c.name.pos,
                format!("constant `{}`", c.name.text),
            ));
        }
        for (n, what) in schema
            .enums
            .iter()
            .map(|e| (&e.name, "enum"))
            .chain(schema.flags.iter().map(|f| (&f.name, "flags")))
            .chain(schema.bitfields.iter().map(|f| (&f.name, "bitfields")))
            .chain(schema.structs.iter().map(|s| (&s.name, "struct")))
        {
            taken.push((n.text.clone(), n.pos, format!("{what} `{}`", n.text)));
        }
        Taken(taken)
    }

    /// `who` (at `pos`) generates `n`: an error naming the holder when `n` is taken, else
    /// `n` is `who`'s from now on.
    pub(crate) fn claim(&mut self, n: String, pos: Pos, who: String, d: &mut Diags) {
        if let Some((_, p, w)) = self.0.iter().find(|(t, _, _)| *t == n) {
            let at = if p.line == 0 {
                String::new()
            } else {
                format!(" (line {})", p.line)
            };
            d.error(
                pos,
                format!("{who} generates `{n}`, which {w}{at} also defines; rename one"),
            );
        } else {
            self.0.push((n, pos, who));
        }
    }
}
