//! Stable sorting with one copy of the sorting code in the library.
//!
//! `slice::sort_by` is generic over the element and the comparison, so each call site with its
//! own closure compiles a sort of its own (10–14 KiB of aarch64 code each). The sorts of the
//! core (scopes for the screens, tools by last access, grants by specificity, …) go through
//! [`sort_by`] instead: the order is computed on indices with the comparison behind `dyn` (one
//! instance of the standard sort for the whole crate), then applied to the slice by swaps.
//! The result is the same as `slice::sort_by`'s: stable, in `O(n log n)` comparisons.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping equal items in their order (as `slice::sort_by`).
pub(crate) fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    let order = order(items.len(), &|a, b| compare(&items[a], &items[b]));
    permute(order, &mut |a, b| items.swap(a, b));
}

/// Sorts `items` by the key `key` gives each, keeping items with equal keys in their order
/// (as `slice::sort_by_key`).
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The indices `0..len` in the order `compare` (on indices) sorts them, stable.
fn order(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Rearranges a slice through `swap` so that position `i` holds what was at `order[i]`: each
/// cycle of the permutation is followed once, so at most `len - 1` swaps.
fn permute(mut order: Vec<usize>, swap: &mut dyn FnMut(usize, usize)) {
    const DONE: usize = usize::MAX;
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            // `from` still holds its original item: everything moved so far came from
            // positions of this cycle already visited.
            swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every permutation of up to six items with repeated keys sorts as `slice::sort_by` does,
    /// equal keys in their original order included.
    #[test]
    fn sorts_as_the_standard_stable_sort() {
        fn permutations(n: usize) -> Vec<Vec<usize>> {
            if n == 0 {
                return vec![Vec::new()];
            }
            let mut out = Vec::new();
            for shorter in permutations(n - 1) {
                for at in 0..=shorter.len() {
                    let mut p = shorter.clone();
                    p.insert(at, n - 1);
                    out.push(p);
                }
            }
            out
        }
        for n in 0..=6 {
            for p in permutations(n) {
                // (key, original position): keys repeat, so stability shows.
                let items: Vec<(usize, usize)> =
                    p.iter().enumerate().map(|(i, &v)| (v / 2, i)).collect();
                let mut expected = items.clone();
                expected.sort_by_key(|item| item.0);
                let mut ours = items.clone();
                sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
                assert_eq!(ours, expected, "{items:?}");
                let mut by_key = items.clone();
                sort_by_key(&mut by_key, |item| std::cmp::Reverse(item.0));
                expected.sort_by_key(|item| std::cmp::Reverse(item.0));
                assert_eq!(by_key, expected, "{items:?}");
            }
        }
    }

    /// Items that own memory are moved, neither copied nor dropped.
    #[test]
    fn moves_owned_items() {
        let mut names: Vec<String> = ["delta", "alpha", "charlie", "bravo", "alpha"]
            .map(String::from)
            .to_vec();
        sort_by(&mut names, |a, b| a.cmp(b));
        assert_eq!(names, ["alpha", "alpha", "bravo", "charlie", "delta"]);
    }
}
