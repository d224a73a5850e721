use bench_stats::paired::shape::{ShapeConfig, shape_analysis};
use bench_stats::sim::{Change, NoiseProfile, SimDesign, simulate_change};
fn main() {
    let blocks: u32 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(8);
    let prof = NoiseProfile::from_name(&std::env::args().nth(2).unwrap_or("quiet".into())).unwrap();
    let cfg = prof.config();
    let mut rej = [0u32; 3];
    let mut any = 0;
    let n = 200;
    for r in 0..n {
        let e = simulate_change(
            &cfg,
            &Change::none(),
            SimDesign::Abba,
            blocks,
            1,
            10_000 + r,
        );
        let mut a = vec![Vec::new(); blocks as usize];
        let mut b = vec![Vec::new(); blocks as usize];
        for &(v, bl, _, x) in &e.runs {
            if v == 0 {
                a[bl as usize].push(x)
            } else {
                b[bl as usize].push(x)
            }
        }
        let s = shape_analysis(&a, &b, &ShapeConfig::default()).unwrap();
        let mut hit = false;
        for (i, q) in s.quantiles.iter().enumerate() {
            if q.p_value <= 0.05 / 3.0 {
                rej[i] += 1;
                hit = true;
            }
        }
        if hit {
            any += 1;
        }
        if r < 3 {
            println!(
                "{:?}",
                s.quantiles
                    .iter()
                    .map(|q| (q.ratio, q.interval, q.p_value))
                    .collect::<Vec<_>>()
            );
        }
    }
    println!(
        "blocks {blocks}: per-quantile rejections {:?} of {n}, any {any}",
        rej
    );
}
