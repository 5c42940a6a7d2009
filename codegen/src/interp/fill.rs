//! `fill` and `same_bytes` steps in the interpreter (the emitter's rules in `fill.rs`, restated from the
//! checked schema), and the values of `record.<part>`.

use npuschema_core::Report;

use super::compile::Comp;
use super::ir::*;
use super::prog::*;
use crate::check::Scope;
use crate::check::fill::byte_value;
use crate::schema::fill::{FillStep, Span, Value};

impl Comp<'_> {
    pub(super) fn fill_step(&mut self, s: &FillStep, scope: Scope<'_>) -> Option<CStep> {
        let [bad, out_site] = crate::lower::sites::fill(s, scope);
        let bad = self.fail(bad);
        let value = match &s.value {
            Value::Byte(_) => FValue::Byte(byte_value(self.c, s)?),
            Value::Same(e) => {
                let out = self.fail(out_site.clone());
                FValue::Same(Box::new((self.expr(&e.expr, scope), out)))
            }
        };
        let (span, out) = match &s.span {
            Span::Range(r) => (
                FSpan::Range(
                    self.c
                        .schema
                        .file
                        .ranges
                        .iter()
                        .position(|x| x.name.text == r.text)?,
                ),
                None,
            ),
            Span::FromTo { from, to } => (
                FSpan::FromTo(Box::new((
                    self.expr(&from.expr, scope),
                    self.expr(&to.expr, scope),
                ))),
                Some(self.fail(out_site)),
            ),
        };
        Some(CStep::Fill(Box::new(FillCheck {
            bad,
            out,
            span,
            value,
        })))
    }
}

impl<'c> Interp<'c> {
    pub(super) fn fill_exec<E: Report>(
        &self,
        p: &FileProg<'c>,
        k: &FillCheck,
        st: &State<'_>,
    ) -> Result<(), E> {
        let (start, bytes) = match &k.span {
            FSpan::Range(i) => {
                let Some((o, l)) = st.ranges.get(*i).copied().flatten() else {
                    return Ok(());
                };
                (o, npuschema_core::range_at(st.buf, o, l).unwrap_or(&[]))
            }
            FSpan::FromTo(ft) => {
                let (from, to) = (st.val(p, &ft.0), st.val(p, &ft.1));
                let bytes = match (from, to) {
                    (Some(f), Some(t)) => match (usize::try_from(f), usize::try_from(t)) {
                        (Ok(f), Ok(t)) => st.buf.get(f..t),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(bytes) = bytes else {
                    let Some(out) = &k.out else {
                        return Ok(());
                    };
                    let len = to
                        .zip(from)
                        .and_then(|(t, f)| t.checked_sub(f))
                        .unwrap_or(u64::MAX);
                    return Err(self.err_at(
                        st,
                        out,
                        [from.unwrap_or(u64::MAX), len, st.len],
                        Some(from.unwrap_or(0)),
                        None,
                    ));
                };
                (from.unwrap_or(0), bytes)
            }
        };
        let first = match &k.value {
            FValue::Byte(v) => bytes
                .iter()
                .enumerate()
                .find(|(_, b)| **b != *v)
                .map(|(i, &b)| (i, b, *v)),
            FValue::Same(x) => {
                let (other, out) = &**x;
                let at = st.val(p, other);
                let n = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
                let Some(same) = at.and_then(|a| npuschema_core::range_at(st.buf, a, n)) else {
                    return Err(self.err_at(
                        st,
                        out,
                        [at.unwrap_or(u64::MAX), n, st.len],
                        Some(at.unwrap_or(0)),
                        None,
                    ));
                };
                bytes
                    .iter()
                    .zip(same)
                    .enumerate()
                    .find(|(_, (b, e))| b != e)
                    .map(|(i, (&b, &e))| (i, b, e))
            }
        };
        if let Some((i, b, e)) = first {
            let at = start.saturating_add(u64::try_from(i).unwrap_or(u64::MAX));
            return Err(self.err_at(st, &k.bad, [u64::from(b), u64::from(e), 0], Some(at), None));
        }
        Ok(())
    }
}
