use bench_stats::paired::shape::{ShapeConfig, shape_analysis};
use rand::{Rng, SeedableRng};
fn main() {
    let blocks: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(8);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    let mut rej = [0u32; 3];
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for _ in 0..n {
        let mut a = vec![Vec::new(); blocks];
        let mut b = vec![Vec::new(); blocks];
        for i in 0..blocks {
            let s: f64 = 1.0 + 0.05 * (rng.random::<f64>() - 0.5);
            for _ in 0..2 {
                a[i].push(s * (1.0 + 0.02 * rng.random::<f64>()));
                b[i].push(s * (1.0 + 0.02 * rng.random::<f64>()));
            }
        }
        let s = shape_analysis(&a, &b, &ShapeConfig::default()).unwrap();
        for (i, q) in s.quantiles.iter().enumerate() {
            if q.p_value <= 0.05 / 3.0 {
                rej[i] += 1;
            }
        }
    }
    println!(
        "iid blocks {blocks}: rejections {:?} of {n} (expect ~{:.0} each)",
        rej,
        n as f64 * 0.05 / 3.0
    );
}
