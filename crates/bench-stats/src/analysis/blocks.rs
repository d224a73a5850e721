//! The block table: every member's values grouped by the blocks all members share.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::dataset::Series;

/// Block means of every member over the blocks all members share, plus the per-block
/// replicate values. `None` when the data are not blocked.
pub(crate) struct BlockTable {
    /// `means[b][g]`.
    pub(crate) means: Vec<Vec<f64>>,
    /// `replicates[g][b]`: every value of member `g` in block `b`.
    pub(crate) replicates: Vec<Vec<Vec<f64>>>,
    /// Block ids, ascending.
    pub(crate) ids: Vec<u32>,
    /// Blocks some member did not run in.
    pub(crate) dropped: usize,
}

pub(crate) fn block_table(members: &[&Series]) -> Option<BlockTable> {
    let mut per_member: Vec<BTreeMap<u32, Vec<f64>>> = Vec::with_capacity(members.len());
    for s in members {
        let mut map: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for o in &s.observations {
            map.entry(o.block?).or_default().push(o.value);
        }
        per_member.push(map);
    }
    let all: BTreeSet<u32> = per_member.iter().flat_map(|m| m.keys().copied()).collect();
    let ids: Vec<u32> = all
        .iter()
        .copied()
        .filter(|b| per_member.iter().all(|m| m.contains_key(b)))
        .collect();
    let dropped = all.len() - ids.len();
    let replicates: Vec<Vec<Vec<f64>>> = per_member
        .iter()
        .map(|m| ids.iter().map(|b| m[b].clone()).collect())
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
