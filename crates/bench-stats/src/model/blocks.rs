//! Runs grouped by block in one flat array ([`Blocks`]): what the paired estimators and
//! the shape check read, one variant at a time.

/// One variant's runs grouped by block: block `b`'s runs are a slice of one flat array of
/// values, read with `blocks[b]` or [`Blocks::iter`]. Two allocations for any number of
/// blocks (a list of lists holds one a block).
///
/// # Examples
/// ```
/// use bench_stats::model::Blocks;
/// let mut runs = Blocks::new();
/// runs.push(&[100.0, 101.0]);
/// runs.push(&[99.0]);
/// assert_eq!(runs.len(), 2);
/// assert_eq!(&runs[1], &[99.0]);
/// assert_eq!(runs.values(), &[100.0, 101.0, 99.0]);
/// // From a list of lists, the same blocks.
/// assert_eq!(Blocks::from(vec![vec![100.0, 101.0], vec![99.0]]), runs);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Blocks {
    /// Every run, block after block.
    values: Vec<f64>,
    /// `ends[b]`: where block `b`'s runs end in `values` (it starts where `b - 1` ends).
    ends: Vec<usize>,
}

impl Blocks {
    /// No block.
    pub fn new() -> Blocks {
        Blocks::default()
    }

    /// No block, with room for `blocks` blocks of `values` runs in all.
    pub fn with_capacity(blocks: usize, values: usize) -> Blocks {
        Blocks {
            values: Vec::with_capacity(values),
            ends: Vec::with_capacity(blocks),
        }
    }

    /// Adds a block holding `runs`.
    pub fn push(&mut self, runs: &[f64]) {
        self.values.extend_from_slice(runs);
        self.ends.push(self.values.len());
    }

    /// Adds a block holding the values of `runs`.
    pub fn push_iter(&mut self, runs: impl IntoIterator<Item = f64>) {
        self.values.extend(runs);
        self.ends.push(self.values.len());
    }

    /// The number of blocks.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// `true` when there is no block.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Block `b`'s runs, `None` past the last block.
    pub fn get(&self, b: usize) -> Option<&[f64]> {
        let end = *self.ends.get(b)?;
        let start = if b == 0 { 0 } else { self.ends[b - 1] };
        Some(&self.values[start..end])
    }

    /// Every run, block after block.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Each block's runs, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            blocks: self,
            front: 0,
            back: self.len(),
        }
    }

    /// The same blocks, every run `x` replaced by `f(x)`.
    pub fn map(&self, f: impl FnMut(f64) -> f64) -> Blocks {
        Blocks {
            values: self.values.iter().copied().map(f).collect(),
            ends: self.ends.clone(),
        }
    }

    /// The same blocks, every run `x` of block `b` replaced by `f(b, x)`.
    pub fn map_blocks(&self, mut f: impl FnMut(usize, f64) -> f64) -> Blocks {
        let mut values = Vec::with_capacity(self.values.len());
        for (b, runs) in self.iter().enumerate() {
            values.extend(runs.iter().map(|&x| f(b, x)));
        }
        Blocks {
            values,
            ends: self.ends.clone(),
        }
    }
}

/// What the paired estimators and the shape check take for one variant's runs by block:
/// a [`Blocks`] (read in place) or a list of lists (`Vec<Vec<f64>>`, `[Vec<f64>]`, copied
/// into a [`Blocks`] once).
pub trait AsBlocks {
    /// The runs as [`Blocks`]: borrowed when they are already, else a flat copy.
    fn as_blocks(&self) -> std::borrow::Cow<'_, Blocks>;
}

impl AsBlocks for Blocks {
    fn as_blocks(&self) -> std::borrow::Cow<'_, Blocks> {
        std::borrow::Cow::Borrowed(self)
    }
}

impl AsBlocks for [Vec<f64>] {
    fn as_blocks(&self) -> std::borrow::Cow<'_, Blocks> {
        std::borrow::Cow::Owned(Blocks::from(self))
    }
}

impl<const N: usize> AsBlocks for [Vec<f64>; N] {
    fn as_blocks(&self) -> std::borrow::Cow<'_, Blocks> {
        std::borrow::Cow::Owned(Blocks::from(self.as_slice()))
    }
}

impl AsBlocks for Vec<Vec<f64>> {
    fn as_blocks(&self) -> std::borrow::Cow<'_, Blocks> {
        std::borrow::Cow::Owned(Blocks::from(self.as_slice()))
    }
}

impl std::ops::Index<usize> for Blocks {
    type Output = [f64];

    /// Block `b`'s runs.
    ///
    /// # Panics
    /// Past the last block, as a slice does.
    fn index(&self, b: usize) -> &[f64] {
        let start = if b == 0 { 0 } else { self.ends[b - 1] };
        &self.values[start..self.ends[b]]
    }
}

/// The blocks of [`Blocks::iter`], each a slice of runs.
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    blocks: &'a Blocks,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a [f64];

    fn next(&mut self) -> Option<&'a [f64]> {
        if self.front == self.back {
            return None;
        }
        let b = self.front;
        self.front += 1;
        Some(&self.blocks[b])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        Some(&self.blocks[self.back])
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Blocks {
    type Item = &'a [f64];
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<B: AsRef<[f64]>> FromIterator<B> for Blocks {
    fn from_iter<I: IntoIterator<Item = B>>(iter: I) -> Blocks {
        let mut out = Blocks::new();
        for runs in iter {
            out.push(runs.as_ref());
        }
        out
    }
}

impl From<&[Vec<f64>]> for Blocks {
    fn from(blocks: &[Vec<f64>]) -> Blocks {
        let mut out = Blocks::with_capacity(blocks.len(), blocks.iter().map(Vec::len).sum());
        for runs in blocks {
            out.push(runs);
        }
        out
    }
}

impl From<&Vec<Vec<f64>>> for Blocks {
    fn from(blocks: &Vec<Vec<f64>>) -> Blocks {
        Blocks::from(blocks.as_slice())
    }
}

impl From<Vec<Vec<f64>>> for Blocks {
    fn from(blocks: Vec<Vec<f64>>) -> Blocks {
        Blocks::from(blocks.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_read_back_as_pushed_including_empty_ones() {
        let nested = vec![vec![1.0, 2.0], vec![], vec![3.0], vec![4.0, 5.0, 6.0]];
        let flat = Blocks::from(&nested);
        assert_eq!(flat.len(), 4);
        let read: Vec<Vec<f64>> = flat.iter().map(<[f64]>::to_vec).collect();
        assert_eq!(read, nested);
        let back: Vec<Vec<f64>> = flat.iter().rev().map(<[f64]>::to_vec).collect();
        assert_eq!(back, nested.iter().rev().cloned().collect::<Vec<_>>());
        assert_eq!(flat.get(2), Some(&[3.0][..]));
        assert_eq!(flat.get(4), None);
        assert_eq!(flat.iter().len(), 4);
        assert_eq!(flat.values(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            flat.map_blocks(|b, x| x + b as f64 * 10.0).values(),
            &[1.0, 2.0, 23.0, 34.0, 35.0, 36.0]
        );
        assert_eq!(flat.map(|x| -x)[3], [-4.0, -5.0, -6.0]);
        assert!(Blocks::new().is_empty());
    }
}
