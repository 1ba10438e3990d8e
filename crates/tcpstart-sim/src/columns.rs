//! The columns of the trace tables, defined once. Each table is declared with [`table!`], a
//! line per column (name, Rust type, type for Python, unit, meaning), which makes the struct
//! of columns, its [`Column`] list and the column-wise work on it. The Python package builds
//! its column types from that list (`_core.schema()`), and docs/scenarios.md's column tables
//! are [`markdown`] of it (`tests/columns_doc.rs` checks them).

use serde::Serialize;

/// A column's type as the Python tables hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dtype {
    /// A float; NaN where there is no value.
    Float,
    /// An unsigned integer (a signed 64-bit one in Python).
    Int,
    /// Text, one of a few names.
    Text,
    /// A link, by its index; handed to Python as its name (empty for none).
    Link,
}

/// One column of a trace table.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Column {
    pub name: &'static str,
    pub dtype: Dtype,
    /// Empty for a count of nothing in particular, an index or a name.
    pub unit: &'static str,
    pub doc: &'static str,
}

/// A trace table's name (as the Python `Result` and the saved files call it) and columns.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Schema {
    pub table: &'static str,
    pub columns: &'static [Column],
}

/// A column's values as they are held.
#[derive(Clone, Copy, Debug)]
pub enum Values<'a> {
    F64(&'a [f64]),
    U64(&'a [u64]),
    U32(&'a [u32]),
    Str(&'a [&'static str]),
    /// Byte codes into a few names, in the order of their first row.
    Coded {
        codes: &'a [u8],
        names: &'a [&'static str],
    },
}

/// What a table does with each of its columns, whatever the type of its values.
pub trait ColumnData {
    fn values(&self) -> Values<'_>;
    fn reserve(&mut self, rows: usize);
    /// Puts the rows in `order` (a row index per row), with `scratch` as the gathering buffer.
    fn permute(&mut self, order: &[u32], scratch: &mut Scratch);
}

/// One buffer per type of column to gather a column into while it is permuted: it takes the
/// column's place and the old one becomes the next column's buffer, so all columns of a type
/// cost one new buffer, whose fresh pages fault in on first touch (a run with 200 flows spent a
/// quarter of its time in page faults with a buffer per column).
#[derive(Default)]
pub struct Scratch {
    f64: Vec<f64>,
    u64: Vec<u64>,
    u32: Vec<u32>,
    u8: Vec<u8>,
    str: Vec<&'static str>,
}

/// Puts `column` in `order` through `scratch`.
pub fn permute<T: Copy>(column: &mut Vec<T>, order: &[u32], scratch: &mut Vec<T>) {
    scratch.clear();
    scratch.extend(order.iter().map(|&i| column[i as usize]));
    std::mem::swap(column, scratch);
}

macro_rules! vec_column {
    ($t:ty, $variant:ident, $scratch:ident) => {
        impl ColumnData for Vec<$t> {
            fn values(&self) -> Values<'_> {
                Values::$variant(self)
            }
            fn reserve(&mut self, rows: usize) {
                Vec::reserve(self, rows)
            }
            fn permute(&mut self, order: &[u32], scratch: &mut Scratch) {
                permute(self, order, &mut scratch.$scratch)
            }
        }
    };
}

vec_column!(f64, F64, f64);
vec_column!(u64, U64, u64);
vec_column!(u32, U32, u32);
vec_column!(&'static str, Str, str);

impl Scratch {
    pub fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.u8
    }
}

/// Declares a trace table: its struct (`pub` fields, one per column), its `SCHEMA`, `columns()`
/// (each column's values, in order), `reserve` and `permute`.
macro_rules! table {
    ($(#[$meta:meta])* $table:ident $name:literal {
        $($column:ident: $type:ty, $dtype:ident, $unit:literal, $doc:literal;)*
    }) => {
        $(#[$meta])*
        #[derive(Debug, Default, serde::Serialize)]
        pub struct $table {
            $(#[doc = $doc] pub $column: $type,)*
        }

        impl $table {
            pub const SCHEMA: $crate::columns::Schema = $crate::columns::Schema {
                table: $name,
                columns: &[$($crate::columns::Column {
                    name: stringify!($column),
                    dtype: $crate::columns::Dtype::$dtype,
                    unit: $unit,
                    doc: $doc,
                },)*],
            };

            /// Each column's values, in the order of `SCHEMA`.
            pub fn columns(&self) -> Vec<$crate::columns::Values<'_>> {
                vec![$($crate::columns::ColumnData::values(&self.$column),)*]
            }

            #[allow(dead_code)]
            fn reserve(&mut self, rows: usize) {
                $($crate::columns::ColumnData::reserve(&mut self.$column, rows);)*
            }

            /// Puts every column's rows in `order`.
            #[allow(dead_code)]
            fn permute(&mut self, order: &[u32]) {
                let mut scratch = $crate::columns::Scratch::default();
                $($crate::columns::ColumnData::permute(&mut self.$column, order, &mut scratch);)*
            }
        }
    };
}
pub(crate) use table;

/// Every trace table's schema.
pub fn schemas() -> [Schema; 3] {
    use crate::trace::{FlowTable, PacketTrace, QueueTable};
    [FlowTable::SCHEMA, QueueTable::SCHEMA, PacketTrace::SCHEMA]
}

/// A table's columns as the markdown table docs/scenarios.md shows.
pub fn markdown(schema: &Schema) -> String {
    let mut out = String::from("| column | type | unit | meaning |\n|---|---|---|---|\n");
    for c in schema.columns {
        let dtype = match c.dtype {
            Dtype::Float => "float",
            Dtype::Int => "integer",
            Dtype::Text | Dtype::Link => "text",
        };
        out += &format!("| `{}` | {dtype} | {} | {} |\n", c.name, c.unit, c.doc);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permutation_reorders_every_column_alike() {
        let mut scratch = Scratch::default();
        let (mut a, mut b) = (vec![10u64, 20, 30], vec![1u64, 2, 3]);
        a.permute(&[2, 0, 1], &mut scratch);
        b.permute(&[2, 0, 1], &mut scratch);
        assert_eq!((a, b), (vec![30, 10, 20], vec![3, 1, 2]));
    }
}
