//! Strings in the interpreter: `string_fits` and `string_utf8` (the emitter's rules,
//! restated from the checked schema), and the strings of a valid file for its view.

use npuschema_core::Report;

use super::compile::Comp;
use super::ir::*;
use super::prog::*;
use crate::check::Scope;
use crate::schema::strings::{StrStep, StringDef};

fn def<'c>(file: &'c crate::schema::top::File, name: &str) -> Option<&'c StringDef> {
    file.strings.iter().find(|s| s.name.text == name)
}

fn range_index(file: &crate::schema::top::File, s: &StringDef) -> Option<usize> {
    let r = s.range.as_ref()?;
    file.ranges.iter().position(|x| x.name.text == r.text)
}

/// The bytes a string lies in: its range (once checked) or the whole buffer.
pub(super) fn bytes_of<'b>(st: &State<'b>, range: Option<usize>, whole: bool) -> &'b [u8] {
    match range {
        None if whole => st.buf,
        None => &[],
        Some(i) => st
            .ranges
            .get(i)
            .copied()
            .flatten()
            .and_then(|(o, l)| npuschema_core::range_at(st.buf, o, l))
            .unwrap_or(&[]),
    }
}

impl Comp<'_> {
    pub(super) fn str_step(&mut self, s: &StrStep, scope: Scope<'_>) -> Option<CStep> {
        let file = &self.c.schema.file;
        let sd = def(file, &s.string().text)?;
        let utf8 = matches!(s, StrStep::Utf8 { .. });
        let f = self.fail(crate::lower::sites::string(self.c, s, sd, scope));
        Some(CStep::Str(Box::new(StrCheck {
            f,
            utf8,
            offset: self.expr(&sd.offset.expr, scope),
            range: range_index(file, sd),
            prefix: sd.prefix_bytes(),
            big: sd.big.unwrap_or(false),
        })))
    }
}

impl<'c> Interp<'c> {
    pub(super) fn str_exec<E: Report>(
        &self,
        p: &FileProg<'c>,
        k: &StrCheck,
        st: &State<'_>,
    ) -> Result<(), E> {
        let range = bytes_of(st, k.range, true);
        let offset = st.val(p, &k.offset);
        let s = offset.and_then(|o| npuschema_core::string_at(range, o, k.prefix, k.big));
        let n = |x: usize| u64::try_from(x).unwrap_or(u64::MAX);
        if k.utf8 {
            let s = s.unwrap_or(&[]);
            if let Err(e) = std::str::from_utf8(s) {
                return Err(self.err(st, &k.f, [n(e.valid_up_to()), n(s.len()), 0]));
            }
            return Ok(());
        }
        if s.is_none() {
            let start = offset.unwrap_or(u64::MAX);
            return Err(self.err(
                st,
                &k.f,
                [
                    start,
                    npuschema_core::string_extent(range, start, k.prefix, k.big),
                    n(range.len()),
                ],
            ));
        }
        Ok(())
    }
}

/// One string of a valid file: its name, its path (`title`, `sections[1].name`), where its
/// bytes start in the file, and the bytes.
pub(super) type Found = (String, String, u64, Vec<u8>);

/// The strings of a file that passed every check, file-level ones first, then each table's
/// per record (the record's string is read as its view accessor reads it: the record's
/// fields alone).
pub(super) fn found(p: &FileProg<'_>, comp: &Comp<'_>, st: &State<'_>) -> Vec<Found> {
    let file = &p.c.schema.file;
    let mut out = Vec::new();
    let at = |s: &[u8]| (s.as_ptr() as usize).saturating_sub(st.buf.as_ptr() as usize) as u64;
    for sd in file.strings.iter().filter(|s| s.table.is_none()) {
        let range = bytes_of(st, range_index(file, sd), true);
        let off = st.val(p, &comp.expr(&sd.offset.expr, Scope::Top));
        if let Some(s) = off.and_then(|o| {
            npuschema_core::string_at(range, o, sd.prefix_bytes(), sd.big.unwrap_or(false))
        }) {
            out.push((
                sd.name.text.clone(),
                sd.name.text.clone(),
                at(s),
                s.to_vec(),
            ));
        }
    }
    for (ti, t) in file.tables.iter().enumerate() {
        let Some(Some((tat, count, stride))) = st.tables.get(ti) else {
            continue;
        };
        for sd in file
            .strings
            .iter()
            .filter(|s| s.table.as_ref().is_some_and(|x| x.text == t.name.text))
        {
            let range = bytes_of(st, range_index(file, sd), true);
            let off = comp.expr(&sd.offset.expr, Scope::RecordOnly(t));
            for i in 0..*count {
                let rat = tat.saturating_add(i.saturating_mul(*stride));
                if let Some(s) = st.eval_rec(p, &off, rat).and_then(|o| {
                    npuschema_core::string_at(range, o, sd.prefix_bytes(), sd.big.unwrap_or(false))
                }) {
                    out.push((
                        sd.name.text.clone(),
                        format!("{}[{i}].{}", t.name.text, sd.name.text),
                        at(s),
                        s.to_vec(),
                    ));
                }
            }
        }
    }
    out
}
