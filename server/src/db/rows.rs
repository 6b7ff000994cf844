//! Many rows in one statement, for either backend. A batch's rows are
//! bound as parameters and read back as a table `t` by the backend's row
//! source — SQLite's `json_each` over one JSON array of rows, PostgreSQL's
//! `UNNEST` over one array per column — so each statement
//! ([`super::writes`]) is written once, with `{rows}` where the source
//! goes, and costs one round trip however many rows it writes.

use uuid::Uuid;

/// One column's values, typed as the backends bind them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Values {
    /// `text`.
    Text(Vec<Option<String>>),
    /// `int8`.
    Int(Vec<Option<i64>>),
    /// `float8`.
    Float(Vec<Option<f64>>),
    /// `bool`.
    Bool(Vec<bool>),
    /// `uuid` (text in SQLite).
    Uuid(Vec<Uuid>),
    /// JSON text (`jsonb` in PostgreSQL, text in SQLite).
    Json(Vec<String>),
}

impl Values {
    /// The value of row `i` as JSON, for SQLite's array of rows.
    pub(crate) fn json(&self, i: usize) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Values::Text(v) => v.get(i).cloned().flatten().map_or(Value::Null, Value::from),
            Values::Int(v) => v.get(i).copied().flatten().map_or(Value::Null, Value::from),
            Values::Float(v) => v.get(i).copied().flatten().map_or(Value::Null, Value::from),
            Values::Bool(v) => v.get(i).map_or(Value::Null, |b| Value::from(*b)),
            Values::Uuid(v) => v.get(i).map_or(Value::Null, |u| Value::from(u.to_string())),
            Values::Json(v) => v.get(i).map_or(Value::Null, |s| Value::from(s.as_str())),
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::Text(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Uuid(v) => v.len(),
            Values::Json(v) => v.len(),
        }
    }
}

/// JSON kept as text: stored as `jsonb` where the backend has the type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Json(pub String);

/// A Rust value that fills a column.
pub(crate) trait Cell: Sized {
    /// The column holding `values`.
    fn column(values: Vec<Self>) -> Values;
}

/// A column of `Option<$t>` as it is, and of `$t` with every value
/// present.
macro_rules! nullable_cells {
    ($($variant:ident: $t:ty),*) => {$(
        impl Cell for Option<$t> {
            fn column(values: Vec<Self>) -> Values {
                Values::$variant(values)
            }
        }

        impl Cell for $t {
            fn column(values: Vec<Self>) -> Values {
                Values::$variant(values.into_iter().map(Some).collect())
            }
        }
    )*};
}

nullable_cells!(Text: String, Int: i64, Float: f64);

impl Cell for &str {
    fn column(values: Vec<Self>) -> Values {
        Values::Text(values.into_iter().map(|s| Some(s.to_owned())).collect())
    }
}

impl Cell for bool {
    fn column(values: Vec<Self>) -> Values {
        Values::Bool(values)
    }
}

impl Cell for Uuid {
    fn column(values: Vec<Self>) -> Values {
        Values::Uuid(values)
    }
}

impl Cell for Json {
    fn column(values: Vec<Self>) -> Values {
        Values::Json(values.into_iter().map(|j| j.0).collect())
    }
}

/// Named columns of equal length: the rows one statement writes or reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Rows {
    columns: Vec<(&'static str, Values)>,
}

impl Rows {
    /// Rows with one column per call to [`Rows::col`], taken from `items`.
    pub(crate) fn of<T>(items: &[T]) -> RowsOf<'_, T> {
        RowsOf {
            items,
            rows: Rows::default(),
        }
    }

    /// These rows with one more column, `name`.
    pub(crate) fn with(mut self, name: &'static str, values: Values) -> Rows {
        self.columns.push((name, values));
        self
    }

    /// The columns, in order: the `t.name`s a statement reads.
    pub(crate) fn columns(&self) -> &[(&'static str, Values)] {
        &self.columns
    }

    /// Takes the columns, to bind them.
    pub(crate) fn into_columns(self) -> Vec<(&'static str, Values)> {
        self.columns
    }

    /// How many rows (the longest column's length; all are equal).
    pub(crate) fn len(&self) -> usize {
        self.columns.iter().map(|(_, v)| v.len()).max().unwrap_or(0)
    }

    /// The rows as one JSON array of row arrays (SQLite's bind).
    pub(crate) fn json(&self) -> String {
        let rows: Vec<serde_json::Value> = (0..self.len())
            .map(|i| self.columns.iter().map(|(_, v)| v.json(i)).collect())
            .collect();
        serde_json::Value::Array(rows).to_string()
    }
}

/// [`Rows`] being built from a slice of items, a column at a time.
pub(crate) struct RowsOf<'a, T> {
    items: &'a [T],
    rows: Rows,
}

impl<T> RowsOf<'_, T> {
    /// Adds the column `name`, what `f` picks from each item.
    pub(crate) fn col<C: Cell>(mut self, name: &'static str, f: impl Fn(&T) -> C) -> Self {
        let values = self.items.iter().map(f).collect();
        self.rows.columns.push((name, C::column(values)));
        self
    }
}

impl<T> From<RowsOf<'_, T>> for Rows {
    fn from(of: RowsOf<'_, T>) -> Rows {
        of.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_transpose_to_json_arrays_with_nulls() {
        let items = [(1_i64, Some("a")), (2, None)];
        let rows: Rows = Rows::of(&items)
            .col("n", |r| r.0)
            .col("s", |r| r.1.map(str::to_owned))
            .col("b", |r| r.0 > 1)
            .into();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.json(), r#"[[1,"a",false],[2,null,true]]"#);
        let names: Vec<&str> = rows.columns().iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["n", "s", "b"]);
    }
}
