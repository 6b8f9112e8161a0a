//! Named column tables: the one shape in which a run's results leave the engine.
//!
//! A run returns a list of [`Table`]s (queues, flows, time series, and any table a
//! component adds); the binding converts every table the same way, column by column, so a
//! new table or column reaches Python without a line of binding code. Columns are typed
//! vectors of equal length; the strings that repeat in long tables (a queue name on every
//! sample row) are dictionary-encoded (`Column::Dict`): one code per row, each name once.

/// One typed column.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    /// A float that may be missing (not the same as NaN: "no value", e.g. the completion
    /// time of a flow that is not a finite transfer).
    OptF64(Vec<Option<f64>>),
    Str(Vec<String>),
    /// Strings as codes into their distinct values: row i is `values[codes[i]]`. The same
    /// column as `Str` of those strings, seen from Python; a long table's names cost a
    /// 4-byte code per row instead of a string.
    Dict {
        codes: Vec<u32>,
        values: Vec<String>,
    },
    Bool(Vec<bool>),
}

impl Column {
    /// A dictionary-encoded string column; every code must index `values`.
    pub fn dict(codes: Vec<u32>, values: Vec<String>) -> Column {
        assert!(
            codes.iter().all(|&c| (c as usize) < values.len()),
            "a code beyond the {} values",
            values.len()
        );
        Column::Dict { codes, values }
    }

    /// The strings of a `Str` or `Dict` column, one per row (empty for other types).
    pub fn strings(&self) -> Vec<String> {
        match self {
            Column::Str(v) => v.clone(),
            Column::Dict { codes, values } => {
                codes.iter().map(|&c| values[c as usize].clone()).collect()
            }
            _ => vec![],
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::OptF64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Dict { codes, .. } => codes.len(),
            Column::Bool(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Column::U64(_) => "u64",
            Column::I64(_) => "i64",
            Column::F64(_) => "f64",
            Column::OptF64(_) => "optional f64",
            Column::Str(_) => "string",
            Column::Dict { .. } => "dictionary-encoded string",
            Column::Bool(_) => "bool",
        }
    }

    /// An empty column of the same type.
    fn empty_like(&self) -> Column {
        match self {
            Column::U64(_) => Column::U64(vec![]),
            Column::I64(_) => Column::I64(vec![]),
            Column::F64(_) => Column::F64(vec![]),
            Column::OptF64(_) => Column::OptF64(vec![]),
            Column::Str(_) => Column::Str(vec![]),
            Column::Dict { .. } => Column::Dict {
                codes: vec![],
                values: vec![],
            },
            Column::Bool(_) => Column::Bool(vec![]),
        }
    }

    /// Appends `other`; the caller has checked that it is of the same type.
    fn extend(&mut self, other: Column) {
        match (self, other) {
            (Column::U64(a), Column::U64(b)) => a.extend(b),
            (Column::I64(a), Column::I64(b)) => a.extend(b),
            (Column::F64(a), Column::F64(b)) => a.extend(b),
            (Column::OptF64(a), Column::OptF64(b)) => a.extend(b),
            (Column::Str(a), Column::Str(b)) => a.extend(b),
            (
                Column::Dict { codes, values },
                Column::Dict {
                    codes: more,
                    values: more_values,
                },
            ) => {
                let offset = values.len() as u32;
                codes.extend(more.into_iter().map(|c| c + offset));
                values.extend(more_values);
            }
            (Column::Bool(a), Column::Bool(b)) => a.extend(b),
            (a, b) => unreachable!("{} extended by {}", a.type_name(), b.type_name()),
        }
    }
}

/// Values that make a column: `Table::column_of` maps rows to one of these.
pub trait ColumnValue: Sized {
    fn column(values: Vec<Self>) -> Column;
}

impl ColumnValue for u64 {
    fn column(values: Vec<Self>) -> Column {
        Column::U64(values)
    }
}
impl ColumnValue for u32 {
    fn column(values: Vec<Self>) -> Column {
        Column::U64(values.into_iter().map(u64::from).collect())
    }
}
impl ColumnValue for i64 {
    fn column(values: Vec<Self>) -> Column {
        Column::I64(values)
    }
}
impl ColumnValue for f64 {
    fn column(values: Vec<Self>) -> Column {
        Column::F64(values)
    }
}
impl ColumnValue for Option<f64> {
    fn column(values: Vec<Self>) -> Column {
        Column::OptF64(values)
    }
}
impl ColumnValue for String {
    fn column(values: Vec<Self>) -> Column {
        Column::Str(values)
    }
}
impl ColumnValue for &str {
    fn column(values: Vec<Self>) -> Column {
        Column::Str(values.into_iter().map(str::to_owned).collect())
    }
}
impl ColumnValue for bool {
    fn column(values: Vec<Self>) -> Column {
        Column::Bool(values)
    }
}

/// A named table: named columns of equal length, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new(name: impl Into<String>) -> Table {
        Table {
            name: name.into(),
            columns: vec![],
        }
    }

    /// Adds a column at the end.
    ///
    /// Panics if the name is taken or the length differs from the columns already there:
    /// both are bugs of the code that builds the table, never of a scenario.
    pub fn push(&mut self, name: impl Into<String>, column: Column) -> &mut Table {
        let name = name.into();
        assert!(
            self.column(&name).is_none(),
            "table {}: column {name} added twice",
            self.name
        );
        if let Some((first, c)) = self.columns.first() {
            assert_eq!(
                c.len(),
                column.len(),
                "table {}: column {name} has {} rows, column {first} {}",
                self.name,
                column.len(),
                c.len()
            );
        }
        self.columns.push((name, column));
        self
    }

    /// Adds a column made of `f(row)` for each row.
    pub fn column_of<R, V: ColumnValue>(
        &mut self,
        name: &str,
        rows: &[R],
        f: impl Fn(&R) -> V,
    ) -> &mut Table {
        self.push(name, V::column(rows.iter().map(f).collect()))
    }

    /// Number of rows (0 for a table without columns).
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// The column names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(|(n, _)| n.as_str())
    }

    /// Appends the rows of `other`, which must have the same columns (names, order and
    /// types): the tables of one name from several components make one long table.
    pub fn append(&mut self, other: Table) -> Result<(), String> {
        if !self.names().eq(other.names()) {
            return Err(format!(
                "table {}: cannot append rows with columns [{}] to columns [{}]",
                self.name,
                other.names().collect::<Vec<_>>().join(", "),
                self.names().collect::<Vec<_>>().join(", ")
            ));
        }
        for ((name, a), (_, b)) in self.columns.iter().zip(&other.columns) {
            if std::mem::discriminant(a) != std::mem::discriminant(b) {
                return Err(format!(
                    "table {}: column {name} is {}, the rows appended have {}",
                    self.name,
                    a.type_name(),
                    b.type_name()
                ));
            }
        }
        for ((_, a), (_, b)) in self.columns.iter_mut().zip(other.columns) {
            a.extend(b);
        }
        Ok(())
    }

    /// An empty table with the same columns.
    pub fn empty_like(&self) -> Table {
        Table {
            name: self.name.clone(),
            columns: self
                .columns
                .iter()
                .map(|(n, c)| (n.clone(), c.empty_like()))
                .collect(),
        }
    }
}

/// Merges tables of the same name into one (in the order of first appearance), keeping
/// the others in order.
pub fn merge_by_name(tables: impl IntoIterator<Item = Table>) -> Result<Vec<Table>, String> {
    let mut out: Vec<Table> = vec![];
    for t in tables {
        match out.iter_mut().find(|x| x.name == t.name) {
            Some(x) => x.append(t)?,
            None => out.push(t),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_of_rows_keep_their_types_and_order() {
        struct Row {
            name: &'static str,
            n: u32,
            x: f64,
            done: Option<f64>,
            ok: bool,
        }
        let rows = [
            Row {
                name: "a",
                n: 1,
                x: 0.5,
                done: None,
                ok: true,
            },
            Row {
                name: "b",
                n: 2,
                x: 1.5,
                done: Some(3.0),
                ok: false,
            },
        ];
        let mut t = Table::new("t");
        t.column_of("name", &rows, |r| r.name)
            .column_of("n", &rows, |r| r.n)
            .column_of("x", &rows, |r| r.x)
            .column_of("done", &rows, |r| r.done)
            .column_of("ok", &rows, |r| r.ok)
            .push("i", Column::I64(vec![-1, 1]));
        assert_eq!(t.len(), 2);
        assert_eq!(
            t.names().collect::<Vec<_>>(),
            ["name", "n", "x", "done", "ok", "i"]
        );
        assert_eq!(t.column("n"), Some(&Column::U64(vec![1, 2])));
        assert_eq!(
            t.column("done"),
            Some(&Column::OptF64(vec![None, Some(3.0)]))
        );
        assert_eq!(t.column("ok"), Some(&Column::Bool(vec![true, false])));
        assert_eq!(t.column("missing"), None);
    }

    #[test]
    #[should_panic(expected = "column b has 1 rows, column a 2")]
    fn columns_of_different_lengths_are_a_bug() {
        let mut t = Table::new("t");
        t.push("a", Column::F64(vec![1.0, 2.0]));
        t.push("b", Column::F64(vec![1.0]));
    }

    #[test]
    fn tables_of_one_name_merge_in_order_of_first_appearance() {
        let mk = |name: &str, v: Vec<u64>| {
            let mut t = Table::new(name);
            t.push("v", Column::U64(v));
            t
        };
        let merged =
            merge_by_name([mk("a", vec![1]), mk("b", vec![7]), mk("a", vec![2, 3])]).unwrap();
        assert_eq!(merged, [mk("a", vec![1, 2, 3]), mk("b", vec![7])]);
        assert_eq!(merged[0].empty_like(), mk("a", vec![]));
    }

    #[test]
    fn dictionary_columns_append_with_their_codes_shifted() {
        let mk = |codes: Vec<u32>, values: &[&str]| {
            let mut t = Table::new("d");
            let values = values.iter().map(|s| s.to_string()).collect();
            t.push("name", Column::dict(codes, values));
            t
        };
        let mut a = mk(vec![0, 0, 1], &["x", "y"]);
        a.append(mk(vec![1, 0], &["z", "w"])).unwrap();
        assert_eq!(
            a.column("name").unwrap().strings(),
            ["x", "x", "y", "w", "z"].map(String::from)
        );
        assert_eq!(
            a.column("name").unwrap().type_name(),
            "dictionary-encoded string"
        );
    }

    #[test]
    #[should_panic(expected = "a code beyond the 1 values")]
    fn a_dictionary_code_beyond_its_values_is_a_bug() {
        Column::dict(vec![0, 1], vec!["x".into()]);
    }

    #[test]
    fn appending_other_columns_or_types_is_refused() {
        let mut a = Table::new("a");
        a.push("v", Column::U64(vec![1]));
        let mut other_name = Table::new("a");
        other_name.push("w", Column::U64(vec![1]));
        assert!(a.append(other_name).unwrap_err().contains("columns [w]"));
        let mut other_type = Table::new("a");
        other_type.push("v", Column::F64(vec![1.0]));
        assert!(a
            .append(other_type)
            .unwrap_err()
            .contains("column v is u64"));
        assert_eq!(a.len(), 1, "a refused append changes nothing");
    }
}
