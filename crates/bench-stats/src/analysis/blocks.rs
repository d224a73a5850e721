//! The block table: every member's values grouped by the blocks all members share.

use crate::model::Blocks;
use crate::model::dataset::Series;

/// Block means of every member over the blocks all members share, plus the per-block
/// replicate values. `None` when the data are not blocked.
pub(crate) struct BlockTable {
    /// `means[b][g]`.
    pub(crate) means: Vec<Vec<f64>>,
    /// `replicates[g][b]`: every value of member `g` in block `b` (one flat array a
    /// member).
    pub(crate) replicates: Vec<Blocks>,
    /// Block ids, ascending.
    pub(crate) ids: Vec<u32>,
    /// Blocks some member did not run in.
    pub(crate) dropped: usize,
}

/// Time: O(values) for values given block by block, O(values log values) otherwise; no
/// map or list is built for a block that a member lacks.
pub(crate) fn block_table(members: &[&Series]) -> Option<BlockTable> {
    // Each member's (block, value) pairs by block, a block's values in arrival order.
    let mut per_member: Vec<Vec<(u32, f64)>> = Vec::with_capacity(members.len());
    for s in members {
        let mut pairs: Vec<(u32, f64)> = s
            .observations
            .iter()
            .map(|o| o.block.map(|b| (b, o.value)))
            .collect::<Option<_>>()?;
        if !pairs.windows(2).all(|w| w[0].0 <= w[1].0) {
            // Stable: a block's values stay in arrival order.
            pairs.sort_by_key(|p| p.0);
        }
        per_member.push(pairs);
    }
    let blocks_of = |pairs: &[(u32, f64)]| -> Vec<u32> {
        let mut ids: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        ids.dedup();
        ids
    };
    let mut all: Vec<u32> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    for (g, pairs) in per_member.iter().enumerate() {
        let mine = blocks_of(pairs);
        if g == 0 {
            ids.clone_from(&mine);
            all = mine;
        } else {
            ids.retain(|b| mine.binary_search(b).is_ok());
            all.extend(mine);
            all.sort_unstable();
            all.dedup();
        }
    }
    let dropped = all.len() - ids.len();
    let replicates: Vec<Blocks> = per_member
        .into_iter()
        .map(|pairs| {
            let mut out = Blocks::with_capacity(ids.len(), pairs.len());
            let mut groups = pairs.chunk_by(|x, y| x.0 == y.0).peekable();
            for &b in &ids {
                while groups.next_if(|g| g[0].0 < b).is_some() {}
                match groups.next_if(|g| g[0].0 == b) {
                    Some(g) => out.push_iter(g.iter().map(|p| p.1)),
                    None => out.push(&[]),
                }
            }
            out
        })
        .collect();
    let means = (0..ids.len())
        .map(|b| {
            replicates
                .iter()
                .map(|r| r[b].iter().sum::<f64>() / r[b].len() as f64)
                .collect()
        })
        .collect();
    Some(BlockTable {
        means,
        replicates,
        ids,
        dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dataset::Observation;

    fn series(name: &str, values: &[(u32, f64)]) -> Series {
        Series::new(
            name.to_owned(),
            values.iter().map(|&(b, v)| Observation::in_block(v, b)),
        )
    }

    #[test]
    fn values_out_of_block_order_group_by_block_in_arrival_order_over_shared_blocks() {
        // Block 3 only A ran, block 0 only B: both dropped; a block's values keep their
        // order of arrival whatever order the blocks come in.
        let a = series("A", &[(2, 5.0), (1, 3.0), (3, 9.0), (2, 6.0), (1, 4.0)]);
        let b = series("B", &[(0, 1.0), (1, 7.0), (2, 8.0), (1, 2.0)]);
        let t = block_table(&[&a, &b]).unwrap();
        assert_eq!(t.ids, [1, 2]);
        assert_eq!(t.dropped, 2);
        assert_eq!(
            t.replicates[0],
            Blocks::from(vec![vec![3.0, 4.0], vec![5.0, 6.0]])
        );
        assert_eq!(
            t.replicates[1],
            Blocks::from(vec![vec![7.0, 2.0], vec![8.0]])
        );
        assert_eq!(t.means, [vec![3.5, 4.5], vec![5.5, 8.0]]);
    }

    #[test]
    fn a_value_without_a_block_gives_no_table() {
        let mut a = series("A", &[(0, 1.0)]);
        a.observations.push(Observation::new(2.0));
        assert!(block_table(&[&a]).is_none());
    }
}
