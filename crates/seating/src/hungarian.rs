//! Minimum-cost assignment of n rows to n columns (the Hungarian method with
//! potentials, O(n³)); n is 10 here, so it is instant.

/// `cost[r * n + c]`; returns the column of each row.
pub(crate) fn assign(cost: &[i64], n: usize) -> Vec<usize> {
    debug_assert_eq!(cost.len(), n * n);
    const INF: i64 = i64::MAX / 4;
    // 1-based as in the textbook form; column 0 is the virtual start.
    let mut u = vec![0i64; n + 1];
    let mut v = vec![0i64; n + 1];
    let mut row_of = vec![0usize; n + 1];
    let mut way = vec![0usize; n + 1];
    for i in 1..=n {
        row_of[0] = i;
        let mut j0 = 0;
        let mut minv = vec![INF; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[j0] = true;
            let i0 = row_of[j0];
            let mut delta = INF;
            let mut j1 = 0;
            for j in 1..=n {
                if !used[j] {
                    let cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if row_of[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut col = vec![0usize; n];
    for j in 1..=n {
        col[row_of[j] - 1] = j - 1;
    }
    col
}

#[cfg(test)]
mod tests {
    use super::assign;

    fn total(cost: &[i64], n: usize, col: &[usize]) -> i64 {
        (0..n).map(|r| cost[r * n + col[r]]).sum()
    }

    #[test]
    fn assignment_is_a_permutation_of_least_cost() {
        let n = 4;
        let cost = [9, 2, 7, 8, 6, 4, 3, 7, 5, 8, 1, 8, 7, 6, 9, 4];
        let col = assign(&cost, n);
        let mut seen = col.clone();
        seen.sort_unstable();
        assert_eq!(seen, vec![0, 1, 2, 3]);
        // Brute force over all 24 permutations.
        let mut best = i64::MAX;
        let mut p = [0, 1, 2, 3];
        permute(&mut p, 0, &mut |p| best = best.min(total(&cost, n, p)));
        assert_eq!(total(&cost, n, &col), best);
    }

    fn permute(p: &mut [usize; 4], k: usize, f: &mut impl FnMut(&[usize])) {
        if k == p.len() {
            f(p);
            return;
        }
        for i in k..p.len() {
            p.swap(k, i);
            permute(p, k + 1, f);
            p.swap(k, i);
        }
    }
}
