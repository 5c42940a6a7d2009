//! The aggregate schema types (a whole [`Schema`], its [`File`], the validation [`Step`]s,
//! [`Struct`]s, a file's variants) and [`from_tree`], the loader that reads the top-level keys
//! and calls every construct's loader (`schema/<construct>.rs`). The leaf types and the YAML
//! readers are in `schema/mod.rs`.

use crate::diag::Diags;
use crate::expr::ExprAt;
use crate::schema::ext::{Directory, Ownership, Record, Slots, directory, ownership, slots};
use crate::schema::{
    Checksum, Const, Enum, EnumValue, FieldDef, FlagBit, Flags, IntTy, MapReader, Name, OrderKind,
    Range, Table, Writer, algorithm, boolean, byte_order, doc, expr_at, ext, int_ty, name,
    named_entries, seq, type_ref, uint,
};
use crate::yaml::{Kind, Node, Pos};

/// A fixed-layout struct.
#[derive(Clone, Debug)]
pub struct Struct {
    /// Name (UpperCamel).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The size the schema states, if it does (checked against the layout).
    pub size: Option<(u64, Pos)>,
    /// Fields in layout order.
    pub fields: Vec<FieldDef>,
    /// Values composed from two stored words (`u64` from a low and a high `u32`).
    pub composed: Vec<ext::Composed>,
    /// Fields left out because their type could not be read (reported there), each with
    /// the number of fields before it: the layout after one is not known, and a read of
    /// one is that mistake, not another (`Diags::caused`).
    pub broken: Vec<(usize, Name)>,
}

impl Struct {
    /// The mistake a read of field `name` follows from, if the field was left out for its
    /// type (`broken_cause`).
    #[must_use]
    pub fn broken_read(&self, name: &str) -> Option<String> {
        self.broken
            .iter()
            .any(|(_, n)| n.text == name)
            .then(|| broken_cause(&self.name.text, name))
    }
}

/// The key `Diags::caused` folds by for field `field` of struct `strukt`, left out because
/// its type could not be read: the message of a read of it.
#[must_use]
pub fn broken_cause(strukt: &str, field: &str) -> String {
    format!("`{strukt}`'s field `{field}` has no type it can be read as")
}

/// A validation step. Steps run in the order written; the first failure is returned.
#[derive(Clone, Debug)]
pub enum Step {
    /// The buffer is at least `min` bytes long.
    MinLen {
        /// Error code.
        code: Name,
        /// Minimum length.
        min: ExprAt,
        /// Field to blame.
        field: Option<Name>,
    },
    /// A field equals a value.
    Expect {
        /// Error code.
        code: Name,
        /// The field.
        field: ExprAt,
        /// The value it must equal.
        equals: ExprAt,
    },
    /// A comparison holds.
    Assert {
        /// Error code.
        code: Name,
        /// The comparison.
        expr: ExprAt,
        /// Field to blame.
        field: ExprAt,
        /// `for: k, below: N`: the condition holds for each `k` from 0 below `N`.
        repeat: Option<Repeat>,
    },
    /// A table lies within a limit.
    TableFits {
        /// Error code.
        code: Name,
        /// The table.
        table: Name,
        /// The limit (usually `header.total_bytes` or `len`).
        within: ExprAt,
    },
    /// A range lies within a limit (for a per-record range: each record's, when present).
    RangeFits {
        /// Error code.
        code: Name,
        /// The range.
        range: Name,
        /// The limit.
        within: ExprAt,
    },
    /// A checksum matches.
    Checksum {
        /// Error code.
        code: Name,
        /// The checksum.
        checksum: Name,
    },
    /// A flags field has no undefined bit set.
    FlagsKnown {
        /// Error code.
        code: Name,
        /// The field.
        field: ExprAt,
    },
    /// A closed enum field holds a defined value.
    EnumKnown {
        /// Error code.
        code: Name,
        /// The field.
        field: ExprAt,
    },
    /// Run steps for every record of a table.
    ForEach {
        /// The table.
        table: Name,
        /// The steps, in record context.
        steps: Vec<Step>,
    },
    /// A step of the directory, located-record, slot and item constructs (`schema/ext.rs`).
    Ext(ext::ExtStep),
    /// `string_fits` and `string_utf8` (`schema/strings.rs`).
    Str(crate::schema::strings::StrStep),
    /// Every byte of a span equals one value (`{ code, fill: RANGE, byte: B }`, `schema/fill.rs`).
    Fill(crate::schema::fill::FillStep),
    /// A named value, computed once here, for the steps after it (`{ let: NAME, value: EXPR }`).
    Let {
        /// The name.
        name: Name,
        /// The value.
        value: ExprAt,
    },
    /// The records of a table in order of a key, or their ranges apart (`sorted`, `unique`,
    /// `no_overlap`), checked in table order in one pass.
    Order {
        /// Error code.
        code: Name,
        /// Which relation.
        kind: OrderKind,
        /// The table (`sorted`, `unique`) or the per-record range (`no_overlap`).
        target: Name,
        /// The key, in record scope (`sorted`, `unique`).
        by: Option<ExprAt>,
    },
    /// A record stream is walked: every record's header and body inside its range
    /// (`{ code, stream_fits: STREAM }`, `schema/streams.rs`).
    StreamFits {
        /// Error code.
        code: Name,
        /// The stream.
        stream: Name,
        /// The walk (`stream_fits`) or the per-record checksums (`stream_checksum`).
        kind: crate::schema::streams::StreamStep,
    },
    /// A checking step that runs only when a condition holds (`when:` on the step).
    When {
        /// The condition, in the step's scope.
        when: ExprAt,
        /// The step.
        step: Box<Step>,
    },
}

impl File {
    /// The checksum named `name`: of the file, or one per record.
    #[must_use]
    pub fn checksum(&self, name: &str) -> Option<&Checksum> {
        self.checksums
            .iter()
            .chain(&self.record_checksums)
            .find(|k| k.name.text == name)
    }
}

/// The file: what sits where, and the validation steps.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// Name of the validated view type (UpperCamel).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// The header struct, at offset 0.
    pub header: Name,
    /// Error code when the buffer is shorter than the header.
    pub header_code: Name,
    /// Tables.
    pub tables: Vec<Table>,
    /// Ranges.
    pub ranges: Vec<Range>,
    /// Checksums of the file.
    pub checksums: Vec<Checksum>,
    /// Checksums with `table`: one per record of a table or stream.
    pub record_checksums: Vec<Checksum>,
    /// Validation steps, in order.
    pub validate: Vec<Step>,
    /// Writer layout, if the schema wants a writer.
    pub writer: Option<Writer>,
    /// Located records, section directories, slot regions, variants (`schema/ext.rs`).
    pub ext: FileExt,
    /// Strings in byte ranges (`schema/strings.rs`).
    pub strings: Vec<crate::schema::strings::StringDef>,
    /// Record streams (`schema/streams.rs`).
    pub streams: Vec<crate::schema::streams::Stream>,
    /// Tables, ranges, records and streams that could not be read (reported there): a use
    /// of one is that mistake, not another (`schema::definitions`).
    pub dropped: Vec<Name>,
}

/// An `assert` repeated for an index (`for: k, below: N`): `k` is a named value of its
/// condition, each of `0..N` in turn (TIFF's strip `k`: `word(offsets + k * w, w)`).
#[derive(Clone, Debug)]
pub struct Repeat {
    /// The index's name, a named value of the condition.
    pub var: Name,
    /// How many times: the index runs from 0 below it.
    pub below: ExprAt,
}

/// The file's named values: its top-level `let` steps, in order.
pub fn lets(file: &crate::schema::top::File) -> Vec<&Name> {
    fn walk<'a>(steps: &'a [Step], out: &mut Vec<&'a Name>) {
        for s in steps {
            match s {
                Step::Let { name, .. } => out.push(name),
                Step::Assert {
                    repeat: Some(r), ..
                } => out.push(&r.var),
                Step::ForEach { steps, .. } => walk(steps, out),
                Step::When { step, .. } => walk(std::slice::from_ref(&**step), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&file.validate, &mut out);
    out
}

/// The file's named values found once, when the file is checked (a reference to one is a
/// hash lookup, not a walk of every step).
#[derive(Clone, Debug, Default)]
pub struct Lets {
    names: Vec<String>,
    index: std::collections::HashMap<String, usize>,
}

impl Lets {
    /// The named values of `file` ([`lets`]), each known by its first `let`.
    pub(crate) fn of(file: &crate::schema::top::File) -> Self {
        let names: Vec<String> = lets(file).into_iter().map(|n| n.text.clone()).collect();
        let mut index = std::collections::HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            index.entry(n.clone()).or_insert(i);
        }
        Self { names, index }
    }
    /// The index of the named value `name` (its first `let`).
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }
    /// The name of named value `i`.
    pub(crate) fn name(&self, i: usize) -> Option<&str> {
        self.names.get(i).map(String::as_str)
    }
    /// How many `let` steps the file has.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
}

/// A whole schema.
#[derive(Clone, Debug)]
pub struct Schema {
    /// Schema name (used for the module and in the generated header).
    pub name: Name,
    /// Documentation.
    pub doc: String,
    /// Constants.
    pub constants: Vec<Const>,
    /// Enumerations.
    pub enums: Vec<Enum>,
    /// Flag sets.
    pub flags: Vec<Flags>,
    /// Bit-field words.
    pub bitfields: Vec<ext::Bitfield>,
    /// Structs.
    pub structs: Vec<Struct>,
    /// The file layout (empty when `has_file` is false).
    pub file: File,
    /// Whether the schema has a `file`: only a schema with `registers` may have none, and
    /// then there are no bytes to read (`schema/regs.rs`).
    pub has_file: bool,
    /// The register block (`schema/regs.rs`).
    pub registers: Option<crate::schema::regs::Block>,
    /// The opcode space (`schema/commands.rs`).
    pub commands: Option<crate::schema::commands::Space>,
    /// `byte_order: { big_when: COND }`: the file's byte order, big-endian when COND (over
    /// the header's fields of a fixed order) holds; the fields without a `byte_order` of
    /// their own or of their struct take it (`FieldDef::file_order`).
    pub big_when: Option<ExprAt>,
    /// `byte_order: big` on the schema: the file's order when no header chooses it (what
    /// `word(at, width)` reads in).
    pub big: bool,
}

/// Build the typed schema from the tree. Returns `None` only when the root is unusable;
/// otherwise whatever could be read, with every problem recorded in `d`.
pub fn from_tree(root: &Node, d: &mut Diags) -> Option<Schema> {
    let mut m = MapReader::new(root, "the schema", d)?;
    let sname = m.req("schema", d).and_then(|n| name(n, "schema", d));
    let sdoc = doc(&mut m, d);

    let mut constants = Vec::new();
    if let Some(n) = m.opt("constants") {
        for (cname, v) in named_entries(n, "constants", d) {
            let (value, value_pos, ty, cdoc) = match &v.kind {
                Kind::Map(_) => {
                    let Some(mut cm) = MapReader::new(v, &format!("constant `{}`", cname.text), d)
                    else {
                        continue;
                    };
                    let value = cm.req("value", d);
                    let vp = value.map(|n| n.pos).unwrap_or(v.pos);
                    let value = value.and_then(|n| uint(n, "value", d));
                    let ty = cm
                        .opt("type")
                        .and_then(|n| int_ty(n, "type", d))
                        .unwrap_or(IntTy::U32);
                    let cdoc = doc(&mut cm, d);
                    cm.finish(&["value", "type", "doc"], d);
                    (value, vp, ty, cdoc)
                }
                _ => (
                    uint(v, "constant value", d),
                    v.pos,
                    IntTy::U32,
                    String::new(),
                ),
            };
            if let Some(value) = value {
                constants.push(Const {
                    name: cname,
                    ty,
                    value,
                    value_pos,
                    doc: cdoc,
                });
            }
        }
    }

    let mut enums = Vec::new();
    if let Some(n) = m.opt("enums") {
        for (ename, v) in named_entries(n, "enums", d) {
            let Some(mut em) = MapReader::new(v, &format!("enum `{}`", ename.text), d) else {
                continue;
            };
            let repr = em.req("repr", d).and_then(|n| int_ty(n, "repr", d));
            let open = em
                .opt("open")
                .and_then(|n| boolean(n, "open", d))
                .unwrap_or(false);
            let edoc = doc(&mut em, d);
            let mut values = Vec::new();
            if let Some(vs) = em.req("values", d) {
                for (vname, vv) in named_entries(vs, "values", d) {
                    let (value, vp, vdoc) = match &vv.kind {
                        Kind::Map(_) => {
                            let Some(mut vm) =
                                MapReader::new(vv, &format!("value `{}`", vname.text), d)
                            else {
                                continue;
                            };
                            let value = vm.req("value", d);
                            let vp = value.map(|n| n.pos).unwrap_or(vv.pos);
                            let value = value.and_then(|n| uint(n, "value", d));
                            let vdoc = doc(&mut vm, d);
                            vm.finish(&["value", "doc"], d);
                            (value, vp, vdoc)
                        }
                        _ => (uint(vv, "enum value", d), vv.pos, String::new()),
                    };
                    if let Some(value) = value {
                        values.push(EnumValue {
                            name: vname,
                            value,
                            value_pos: vp,
                            doc: vdoc,
                        });
                    }
                }
            }
            em.finish(&["repr", "open", "doc", "values"], d);
            if let Some(repr) = repr {
                enums.push(Enum {
                    name: ename,
                    repr,
                    open,
                    doc: edoc,
                    values,
                });
            }
        }
    }

    let mut flags = Vec::new();
    if let Some(n) = m.opt("flags") {
        for (fname, v) in named_entries(n, "flags", d) {
            let Some(mut fm) = MapReader::new(v, &format!("flags `{}`", fname.text), d) else {
                continue;
            };
            let repr = fm.req("repr", d).and_then(|n| int_ty(n, "repr", d));
            let fdoc = doc(&mut fm, d);
            let mut bits = Vec::new();
            if let Some(bs) = fm.req("bits", d) {
                for (bname, bv) in named_entries(bs, "bits", d) {
                    let (bit, bp, bdoc) = match &bv.kind {
                        Kind::Map(_) => {
                            let Some(mut bm) =
                                MapReader::new(bv, &format!("bit `{}`", bname.text), d)
                            else {
                                continue;
                            };
                            let bit = bm.req("bit", d);
                            let bp = bit.map(|n| n.pos).unwrap_or(bv.pos);
                            let bit = bit.and_then(|n| uint(n, "bit", d));
                            let bdoc = doc(&mut bm, d);
                            bm.finish(&["bit", "doc"], d);
                            (bit, bp, bdoc)
                        }
                        _ => (uint(bv, "bit number", d), bv.pos, String::new()),
                    };
                    if let Some(bit) = bit {
                        bits.push(FlagBit {
                            name: bname,
                            bit,
                            bit_pos: bp,
                            doc: bdoc,
                        });
                    }
                }
            }
            fm.finish(&["repr", "doc", "bits"], d);
            if let Some(repr) = repr {
                flags.push(Flags {
                    name: fname,
                    repr,
                    doc: fdoc,
                    bits,
                });
            }
        }
    }

    let bitfields = m
        .opt("bitfields")
        .map(|n| ext::bitfields(n, d))
        .unwrap_or_default();

    let (schema_big, big_when) = crate::schema::schema_byte_order(&mut m, d);
    let mut structs = Vec::new();
    if let Some(n) = m.opt("structs") {
        for (stname, v) in named_entries(n, "structs", d) {
            let Some(mut sm) = MapReader::new(v, &format!("struct `{}`", stname.text), d) else {
                continue;
            };
            let sdoc = doc(&mut sm, d);
            let struct_order = byte_order(&mut sm, d);
            let struct_big = struct_order.unwrap_or(schema_big);
            let size = sm
                .opt("size")
                .and_then(|n| uint(n, "size", d).map(|v| (v, n.pos)));
            let mut fields = Vec::new();
            let mut broken = Vec::new();
            if let Some(fs) = sm.req("fields", d) {
                for f in seq(fs, "fields", d) {
                    let Some(mut fm) = MapReader::new(f, "a field", d) else {
                        continue;
                    };
                    let fname = fm.req("name", d).and_then(|n| name(n, "field name", d));
                    let ty_node = fm.req("type", d);
                    let before_ty = d.items.len();
                    let ty = ty_node.and_then(|n| type_ref(n, d));
                    let offset = fm
                        .opt("offset")
                        .and_then(|n| uint(n, "offset", d).map(|v| (v, n.pos)));
                    let since = fm
                        .opt("since")
                        .and_then(|n| uint(n, "since", d).map(|v| (v, n.pos)));
                    let until = fm
                        .opt("until")
                        .and_then(|n| uint(n, "until", d).map(|v| (v, n.pos)));
                    let fdoc = doc(&mut fm, d);
                    let order_pos = fm.entries.iter().find(|e| e.1 == "byte_order").map(|e| e.0);
                    let field_order = byte_order(&mut fm, d);
                    let big = field_order.unwrap_or(struct_big);
                    let file_order =
                        big_when.is_some() && field_order.is_none() && struct_order.is_none();
                    fm.finish(
                        &[
                            "name",
                            "type",
                            "offset",
                            "since",
                            "until",
                            "doc",
                            "byte_order",
                        ],
                        d,
                    );
                    if let (Some(fname), None, Some(_)) = (&fname, &ty, ty_node) {
                        let unread = format!("field `{}`", fname.text);
                        let cause = broken_cause(&stname.text, &fname.text);
                        d.caused(before_ty, &cause, Some(&unread));
                        broken.push((fields.len(), fname.clone()));
                    }
                    if let (Some(fname), Some(ty), Some(tn)) = (fname, ty, ty_node) {
                        fields.push(FieldDef {
                            name: fname,
                            ty,
                            ty_pos: tn.pos,
                            offset,
                            since,
                            until,
                            doc: fdoc,
                            big,
                            file_order,
                            order_pos,
                        });
                    }
                }
            }
            let composed = sm
                .opt("composed")
                .map(|n| ext::composed(n, d))
                .unwrap_or_default();
            sm.finish(&["doc", "size", "fields", "composed", "byte_order"], d);
            structs.push(Struct {
                name: stname,
                doc: sdoc,
                size,
                fields,
                composed,
                broken,
            });
        }
    }

    let registers = m
        .opt("registers")
        .and_then(|n| crate::schema::regs::block(n, d));
    let commands = m
        .opt("commands")
        .and_then(|n| crate::schema::commands::space(n, schema_big, d));
    // A schema with only registers (or commands) describes a device, not bytes: it needs
    // no `file`.
    let device = registers.is_some() || commands.is_some();
    let file_node = if device {
        m.opt("file")
    } else {
        m.req("file", d)
    };
    let has_file = file_node.is_some() || !device;
    let mut file = match file_node {
        Some(n) => file_def(n, d),
        None => device.then(File::default),
    };
    // (With the file's order chosen when it is read, a length word without its own
    // `byte_order` keeps none: refused by `check/order.rs`.)
    if let Some(f) = &mut file
        && big_when.is_none()
    {
        crate::schema::strings::default_order(&mut f.strings, schema_big);
    }
    if let Some(f) = &mut file {
        crate::schema::streams::default_order(&mut f.streams, schema_big, big_when.is_some());
    }
    m.finish(
        &[
            "schema",
            "doc",
            "constants",
            "enums",
            "flags",
            "bitfields",
            "structs",
            "file",
            "byte_order",
            "registers",
            "commands",
        ],
        d,
    );
    Some(Schema {
        name: sname?,
        doc: sdoc,
        constants,
        enums,
        flags,
        bitfields,
        structs,
        file: file?,
        has_file,
        registers,
        commands,
        big_when,
        big: schema_big,
    })
}

pub(crate) fn file_def(node: &Node, d: &mut Diags) -> Option<File> {
    file_body(node, "`file`", false, d)
}

/// A file layout: the top-level `file`, or (`variant` true) one of its `variants`, which
/// may also have `when`.
pub(crate) fn file_body(node: &Node, what: &str, variant: bool, d: &mut Diags) -> Option<File> {
    let mut m = MapReader::new(node, what, d)?;
    let fname = m.req("name", d).and_then(|n| name(n, "file name", d));
    let fdoc = doc(&mut m, d);
    let (header, header_code) = match m.req("header", d) {
        Some(h) => {
            let mut hm = MapReader::new(h, "`header`", d)?;
            let s = hm
                .req("struct", d)
                .and_then(|n| name(n, "header struct", d));
            let c = hm.req("code", d).and_then(|n| name(n, "header code", d));
            hm.finish(&["struct", "code"], d);
            (s, c)
        }
        None => (None, None),
    };
    let mut dropped = Vec::new();
    let tables = match m.opt("tables") {
        Some(ts) => crate::schema::definitions(ts, "tables", d, &mut dropped, |tname, v, d| {
            let mut tm = MapReader::new(v, &format!("table `{}`", tname.text), d)?;
            let tdoc = doc(&mut tm, d);
            let record = tm.req("record", d).and_then(|n| name(n, "record", d));
            let at = tm.req("at", d).and_then(|n| expr_at(n, "at", d));
            let count = tm.req("count", d).and_then(|n| expr_at(n, "count", d));
            let stride = tm.req("stride", d).and_then(|n| expr_at(n, "stride", d));
            let type_name = tm.opt("type_name").and_then(|n| name(n, "type_name", d));
            tm.finish(&["doc", "record", "at", "count", "stride", "type_name"], d);
            Some(Table {
                name: tname,
                doc: tdoc,
                record: record?,
                at: at?,
                count: count?,
                stride: stride?,
                type_name,
            })
        }),
        None => Vec::new(),
    };
    let ranges = match m.opt("ranges") {
        Some(rs) => crate::schema::definitions(rs, "ranges", d, &mut dropped, |rname, v, d| {
            let mut rm = MapReader::new(v, &format!("range `{}`", rname.text), d)?;
            let rdoc = doc(&mut rm, d);
            let table = rm.opt("table").and_then(|n| name(n, "table", d));
            let when = rm.opt("when").and_then(|n| expr_at(n, "when", d));
            let offset = rm.req("offset", d).and_then(|n| expr_at(n, "offset", d));
            let length = rm.req("length", d).and_then(|n| expr_at(n, "length", d));
            let present = rm.opt("present").and_then(|n| name(n, "present", d));
            let absent = rm.opt("absent").and_then(|n| name(n, "absent", d));
            rm.finish(
                &[
                    "doc", "table", "when", "offset", "length", "present", "absent",
                ],
                d,
            );
            Some(Range {
                name: rname,
                doc: rdoc,
                table,
                when,
                offset: offset?,
                length: length?,
                present,
                absent,
            })
        }),
        None => Vec::new(),
    };
    let mut checksums = Vec::new();
    let mut record_checksums = Vec::new();
    if let Some(cs) = m.opt("checksums") {
        for (cname, v) in named_entries(cs, "checksums", d) {
            let Some(mut cm) = MapReader::new(v, &format!("checksum `{}`", cname.text), d) else {
                continue;
            };
            let cdoc = doc(&mut cm, d);
            let algorithm = algorithm(&mut cm, d);
            let from = cm.req("from", d).and_then(|n| expr_at(n, "from", d));
            let to = cm.req("to", d).and_then(|n| expr_at(n, "to", d));
            // `stored: FIELD`, or `equals: VALUE` with the `field` an error names.
            let equals = cm.opt("equals").and_then(|n| expr_at(n, "equals", d));
            let field = cm.opt("field").and_then(|n| expr_at(n, "field", d));
            let stored = match (&equals, cm.opt("stored")) {
                (Some(e), None) => Some(e.clone()),
                (Some(e), Some(_)) => {
                    d.error(
                        e.pos,
                        format!(
                            "checksum `{}` has both `stored` (the field that holds the sum) and `equals` (a value the sum must reach): keep one",
                            cname.text
                        ),
                    );
                    None
                }
                (None, _) => cm.req("stored", d).and_then(|n| expr_at(n, "stored", d)),
            };
            let table = cm.opt("table").and_then(|n| name(n, "table", d));
            let zero = cm
                .opt("zero")
                .map(|z| {
                    seq(z, "zero", d)
                        .iter()
                        .filter_map(|n| expr_at(n, "zero item", d))
                        .collect()
                })
                .unwrap_or_default();
            cm.finish(
                &[
                    "doc",
                    "algorithm",
                    "from",
                    "to",
                    "stored",
                    "equals",
                    "field",
                    "zero",
                    "table",
                ],
                d,
            );
            if let (Some(algorithm), Some(from), Some(to), Some(stored)) =
                (algorithm, from, to, stored)
            {
                let k = Checksum {
                    name: cname,
                    doc: cdoc,
                    algorithm,
                    from,
                    to,
                    stored,
                    equals: equals.is_some(),
                    field,
                    zero,
                    table,
                };
                if k.table.is_some() {
                    record_checksums.push(k);
                } else {
                    checksums.push(k);
                }
            }
        }
    }
    let validate = m.opt("validate").map(|n| steps(n, d)).unwrap_or_default();
    let writer = m.opt("writer").and_then(|n| {
        let mut wm = MapReader::new(n, "`writer`", d)?;
        let order = wm
            .req("order", d)
            .map(|o| {
                seq(o, "order", d)
                    .iter()
                    .filter_map(|n| name(n, "order item", d))
                    .collect()
            })
            .unwrap_or_default();
        let align_node = wm.req("align", d);
        let align = align_node.and_then(|n| uint(n, "align", d));
        let payload_align = wm
            .opt("payload_align")
            .and_then(|n| name(n, "payload_align", d));
        wm.finish(&["order", "align", "payload_align"], d);
        Some(Writer {
            order,
            align: align?,
            align_pos: align_node?.pos,
            payload_align,
        })
    });
    let ext = file_ext(&mut m, variant, d, &mut dropped);
    let strings = crate::schema::strings::load(m.opt("strings"), d);
    let streams = crate::schema::streams::load(&mut m, d, &mut dropped);
    let mut known = vec![
        "strings",
        crate::schema::streams::FILE_KEY,
        "name",
        "doc",
        "header",
        "tables",
        "ranges",
        "checksums",
        "validate",
        "writer",
    ];
    known.extend(FILE_KEYS);
    if variant {
        known.push("when");
    }
    m.finish(&known, d);
    Some(File {
        name: fname?,
        doc: fdoc,
        header: header?,
        header_code: header_code?,
        tables,
        ranges,
        checksums,
        record_checksums,
        validate,
        writer,
        ext,
        strings,
        streams,
        dropped,
    })
}

pub(crate) const STEP_KINDS: &[&str] = &[
    "let",
    "sorted",
    "unique",
    "no_overlap",
    "stream_fits",
    "stream_checksum",
    "min_len",
    "expect",
    "assert",
    "table_fits",
    "range_fits",
    "checksum",
    "flags_known",
    "enum_known",
    "for_each",
];

/// `step` under its `when`, if it has one (the checker says which steps may).
fn under(when: Option<ExprAt>, step: Step) -> Step {
    match when {
        Some(when) => Step::When {
            when,
            step: Box::new(step),
        },
        None => step,
    }
}

pub(crate) fn steps(node: &Node, d: &mut Diags) -> Vec<Step> {
    let mut out = Vec::new();
    for s in seq(node, "validate", d) {
        let Some(mut sm) = MapReader::new(s, "a validation step", d) else {
            continue;
        };
        let when = sm.opt("when").and_then(|n| expr_at(n, "when", d));
        let mut all_kinds = STEP_KINDS.to_vec();
        all_kinds.extend(ext::STEP_KINDS);
        all_kinds.extend(crate::schema::strings::STEP_KINDS);
        all_kinds.push(crate::schema::fill::STEP_KIND);
        all_kinds.push(crate::schema::fill::SAME_KIND);
        let kind = sm.kind_of(&all_kinds).filter(|k| STEP_KINDS.contains(k));
        let Some(kind) = kind else {
            if let Some(fk) = [
                crate::schema::fill::STEP_KIND,
                crate::schema::fill::SAME_KIND,
            ]
            .into_iter()
            .find(|k| sm.entries.iter().any(|e| e.1 == *k))
            {
                if let Some(step) = crate::schema::fill::step(fk, sm, d) {
                    out.push(under(when, Step::Fill(step)));
                }
                continue;
            }
            if let Some(sk) = crate::schema::strings::STEP_KINDS
                .iter()
                .find(|k| sm.entries.iter().any(|e| e.1 == **k))
                .copied()
            {
                if let Some(step) = crate::schema::strings::step(sk, sm, d) {
                    out.push(under(when, Step::Str(step)));
                }
                continue;
            }
            if let Some(ek) = ext::STEP_KINDS
                .iter()
                .find(|k| sm.entries.iter().any(|e| e.1 == **k))
                .copied()
            {
                if let Some(step) = ext::step(ek, sm, d) {
                    out.push(under(when, Step::Ext(step)));
                }
                continue;
            }
            let mut all = STEP_KINDS.to_vec();
            all.extend(ext::STEP_KINDS);
            all.extend(crate::schema::strings::STEP_KINDS);
            all.push(crate::schema::fill::STEP_KIND);
            all.push(crate::schema::fill::SAME_KIND);
            d.error(
                s.pos,
                format!("a validation step needs one of: {}", all.join(", ")),
            );
            continue;
        };
        let code = if kind == "for_each" || kind == "let" {
            None
        } else {
            sm.req("code", d).and_then(|n| name(n, "code", d))
        };
        let step = match kind {
            "sorted" | "unique" | "no_overlap" => {
                let target = sm.opt(kind).and_then(|n| name(n, kind, d));
                let by = if kind == "no_overlap" {
                    None
                } else {
                    sm.req("by", d).and_then(|n| expr_at(n, "by", d))
                };
                let okind = match kind {
                    "sorted" => OrderKind::Sorted,
                    "unique" => OrderKind::Unique,
                    _ => OrderKind::NoOverlap,
                };
                match (code, target) {
                    (Some(code), Some(target)) if kind == "no_overlap" || by.is_some() => {
                        Some(Step::Order {
                            code,
                            kind: okind,
                            target,
                            by,
                        })
                    }
                    _ => None,
                }
            }
            "stream_fits" | "stream_checksum" => {
                let target = sm.opt(kind).and_then(|n| name(n, kind, d));
                let skind = if kind == "stream_fits" {
                    crate::schema::streams::StreamStep::Fits
                } else {
                    crate::schema::streams::StreamStep::Checksum
                };
                code.zip(target).map(|(code, stream)| Step::StreamFits {
                    code,
                    stream,
                    kind: skind,
                })
            }
            "let" => {
                let name = sm.opt("let").and_then(|n| name(n, "let", d));
                let value = sm.req("value", d).and_then(|n| expr_at(n, "value", d));
                name.zip(value)
                    .map(|(name, value)| Step::Let { name, value })
            }
            "min_len" => {
                let min = sm.opt("min_len").and_then(|n| expr_at(n, "min_len", d));
                let field = sm.opt("field").and_then(|n| name(n, "field", d));
                min.zip(code)
                    .map(|(min, code)| Step::MinLen { code, min, field })
            }
            "expect" => {
                let field = sm.opt("expect").and_then(|n| expr_at(n, "expect", d));
                let equals = sm.req("equals", d).and_then(|n| expr_at(n, "equals", d));
                match (code, field, equals) {
                    (Some(code), Some(field), Some(equals)) => Some(Step::Expect {
                        code,
                        field,
                        equals,
                    }),
                    _ => None,
                }
            }
            "assert" => {
                let expr = sm.opt("assert").and_then(|n| expr_at(n, "assert", d));
                let field = sm.req("field", d).and_then(|n| expr_at(n, "field", d));
                let var = sm.opt("for").and_then(|n| name(n, "for", d));
                let below = sm.opt("below").and_then(|n| expr_at(n, "below", d));
                let repeat = match (var, below) {
                    (Some(var), Some(below)) => Some(Repeat { var, below }),
                    (Some(v), None) => {
                        d.error(v.pos, format!("`for: {}` repeats the assert for an index: say how many times with `below: N` (the index runs from 0 below N)", v.text));
                        // Kept (with no count), so that the condition's index is no second
                        // mistake.
                        let below = ExprAt {
                            expr: crate::expr::Expr::Num(0),
                            text: "0".into(),
                            pos: v.pos,
                        };
                        Some(Repeat { var: v, below })
                    }
                    (None, Some(b)) => {
                        d.error(b.pos, format!("`below: {}` says how many times an assert is repeated: name its index with `for: k`", b.text));
                        None
                    }
                    (None, None) => None,
                };
                match (code, expr, field) {
                    (Some(code), Some(expr), Some(field)) => Some(Step::Assert {
                        code,
                        expr,
                        field,
                        repeat,
                    }),
                    _ => None,
                }
            }
            "table_fits" | "range_fits" => {
                let target = sm.opt(kind).and_then(|n| name(n, kind, d));
                let within = sm.req("within", d).and_then(|n| expr_at(n, "within", d));
                match (code, target, within) {
                    (Some(code), Some(t), Some(within)) if kind == "table_fits" => {
                        Some(Step::TableFits {
                            code,
                            table: t,
                            within,
                        })
                    }
                    (Some(code), Some(t), Some(within)) => Some(Step::RangeFits {
                        code,
                        range: t,
                        within,
                    }),
                    _ => None,
                }
            }
            "checksum" => {
                let c = sm.opt("checksum").and_then(|n| name(n, "checksum", d));
                code.zip(c)
                    .map(|(code, checksum)| Step::Checksum { code, checksum })
            }
            "flags_known" | "enum_known" => {
                let field = sm.opt(kind).and_then(|n| expr_at(n, kind, d));
                code.zip(field).map(|(code, field)| {
                    if kind == "flags_known" {
                        Step::FlagsKnown { code, field }
                    } else {
                        Step::EnumKnown { code, field }
                    }
                })
            }
            _ => {
                let table = sm.opt("for_each").and_then(|n| name(n, "for_each", d));
                let inner = sm
                    .req("validate", d)
                    .map(|n| steps(n, d))
                    .unwrap_or_default();
                table.map(|table| Step::ForEach {
                    table,
                    steps: inner,
                })
            }
        };
        let known: &[&str] = match kind {
            "let" => &["let", "value"],
            "sorted" => &["sorted", "by", "code"],
            "unique" => &["unique", "by", "code"],
            "no_overlap" => &["no_overlap", "code"],
            "stream_fits" => &["stream_fits", "code"],
            "stream_checksum" => &["stream_checksum", "code"],
            "min_len" => &["min_len", "code", "field"],
            "expect" => &["expect", "equals", "code"],
            "assert" => &["assert", "field", "code", "for", "below"],
            "table_fits" => &["table_fits", "within", "code"],
            "range_fits" => &["range_fits", "within", "code"],
            "checksum" => &["checksum", "code"],
            "flags_known" => &["flags_known", "code"],
            "enum_known" => &["enum_known", "code"],
            _ => &["for_each", "validate"],
        };
        sm.finish(known, d);
        if let Some(step) = step {
            out.push(match when {
                Some(when) => Step::When {
                    when,
                    step: Box::new(step),
                },
                None => step,
            });
        }
    }
    out
}

/// One layout of a file, chosen by a condition on the common header.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The variant's key (`v2`), the name of the dispatch enum's variant (`V2`).
    pub key: Name,
    /// The condition that selects it (a comparison on the common header).
    pub when: ExprAt,
    /// Its layout: header, tables, steps...
    pub file: File,
}

/// Layouts chosen by the common header.
#[derive(Clone, Debug)]
pub struct Variants {
    /// Code when no variant's condition holds.
    pub code: Name,
    /// The field to blame then (`header.version`).
    pub field: ExprAt,
    /// The variants, tried in order.
    pub list: Vec<Variant>,
}

/// The extra parts of a `file` (or a variant).
#[derive(Clone, Debug, Default)]
pub struct FileExt {
    /// Located records.
    pub records: Vec<Record>,
    /// Section directories.
    pub directories: Vec<Directory>,
    /// Slot regions.
    pub slots: Vec<Slots>,
    /// Parts that must not share a byte.
    pub ownership: Vec<Ownership>,
    /// Variants (top-level file only).
    pub variants: Option<Box<Variants>>,
    /// A variant's selecting condition.
    pub when: Option<ExprAt>,
}

/// Keys of `file` handled here.
pub const FILE_KEYS: &[&str] = &["records", "directories", "slots", "ownership", "variants"];

/// The `file` keys of this module, read from `m`.
pub fn file_ext(
    m: &mut MapReader<'_>,
    variant: bool,
    d: &mut Diags,
    dropped: &mut Vec<Name>,
) -> FileExt {
    let mut out = FileExt::default();
    if let Some(rs) = m.opt("records") {
        for (rname, v) in named_entries(rs, "records", d) {
            let (since, before) = (d.items.len(), out.records.len());
            let Some(mut rm) = MapReader::new(v, &format!("record `{}`", rname.text), d) else {
                crate::schema::left_out(rname, since, d, dropped);
                continue;
            };
            let kept = rname.clone();
            let rdoc = doc(&mut rm, d);
            let strukt = rm.req("struct", d).and_then(|n| name(n, "struct", d));
            let at = rm.req("at", d).and_then(|n| expr_at(n, "at", d));
            let gate = rm.opt("gate").and_then(|n| expr_at(n, "gate", d));
            let search = rm.opt("search").and_then(|sn| {
                let mut sm = MapReader::new(sn, &format!("search of record `{}`", rname.text), d)?;
                let back = sm.req("back", d).and_then(|n| expr_at(n, "back", d));
                let cond = sm.req("where", d).and_then(|n| expr_at(n, "where", d));
                sm.finish(&["back", "where"], d);
                Some(crate::schema::ext::Search {
                    back: back?,
                    cond: cond?,
                    pos: sn.pos,
                })
            });
            let table = rm.opt("table").and_then(|n| name(n, "table", d));
            let when = rm.opt("when").and_then(|n| expr_at(n, "when", d));
            rm.finish(
                &["doc", "struct", "at", "gate", "search", "table", "when"],
                d,
            );
            if let (Some(strukt), Some(at)) = (strukt, at) {
                out.records.push(Record {
                    name: rname,
                    doc: rdoc,
                    strukt,
                    at,
                    gate,
                    search,
                    table,
                    when,
                });
            }
            if out.records.len() == before {
                crate::schema::left_out(kept, since, d, dropped);
            }
        }
    }
    if let Some(ds) = m.opt("directories") {
        for (dname, v) in named_entries(ds, "directories", d) {
            if let Some(x) = directory(dname, v, d) {
                out.directories.push(x);
            }
        }
    }
    if let Some(ss) = m.opt("slots") {
        for (sname, v) in named_entries(ss, "slots", d) {
            if let Some(x) = slots(sname, v, d) {
                out.slots.push(x);
            }
        }
    }
    if let Some(os) = m.opt("ownership") {
        for (oname, v) in named_entries(os, "ownership", d) {
            if let Some(x) = ownership(oname, v, d) {
                out.ownership.push(x);
            }
        }
    }
    if variant {
        out.when = m.req("when", d).and_then(|n| expr_at(n, "when", d));
    }
    if let Some(vs) = m.opt("variants") {
        if variant {
            d.error(vs.pos, "a variant cannot have variants of its own");
        } else if let Some(mut vm) = MapReader::new(vs, "`variants`", d) {
            let code = vm.req("code", d).and_then(|n| name(n, "code", d));
            let field = vm.req("field", d).and_then(|n| expr_at(n, "field", d));
            let mut list = Vec::new();
            if let Some(l) = vm.req("list", d) {
                for (key, v) in named_entries(l, "list", d) {
                    let what = format!("variant `{}`", key.text);
                    if let Some(file) = file_body(v, &what, true, d)
                        && let Some(when) = file.ext.when.clone()
                    {
                        list.push(Variant { key, when, file });
                    }
                }
            }
            vm.finish(&["code", "field", "list"], d);
            if let (Some(code), Some(field)) = (code, field) {
                out.variants = Some(Box::new(Variants { code, field, list }));
            }
        }
    }
    out
}
