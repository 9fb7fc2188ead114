//! Row orders shared by the sortable tables (tasks, preemption triples): keys computed once
//! (not per comparison), a tie-breaker so the order is total and repeatable, and the
//! natural direction of a column kind (numbers largest first, names A to Z).

/// Rows by a name key, ties by `tie`; `descending` reverses the natural A-to-Z order.
pub(super) fn by_text(mut keyed: Vec<(&str, i64, usize)>, descending: bool) -> Vec<usize> {
    keyed.sort_unstable();
    let mut rows: Vec<usize> = keyed.into_iter().map(|(_, _, i)| i).collect();
    if descending {
        rows.reverse();
    }
    rows
}

/// Rows by a number key (a missing one sorts below every number), ties by `tie`;
/// `descending` is the natural order, largest first.
pub(super) fn by_number(keyed: Vec<(Option<f64>, i64, usize)>, descending: bool) -> Vec<usize> {
    let mut keyed: Vec<(f64, i64, usize)> = keyed
        .into_iter()
        .map(|(v, tie, i)| (v.unwrap_or(f64::NEG_INFINITY), tie, i))
        .collect();
    keyed.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut rows: Vec<usize> = keyed.into_iter().map(|(_, _, i)| i).collect();
    if !descending {
        rows.reverse();
    }
    rows
}
