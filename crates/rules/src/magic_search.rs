//! Slider geometry on plain square indices (0 = a1 .. 63 = h8) and the search for magic
//! multipliers. Shared by the build script, which runs the search once at compile time and
//! writes the multipliers to `$OUT_DIR/magics.rs`, and by the crate, which fills its attack
//! tables from them at run time.

/// Rook directions as (file delta, rank delta).
pub const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// Bishop directions as (file delta, rank delta).
pub const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// The square index at (file, rank), if both are on the board.
pub fn square_at(file: i32, rank: i32) -> Option<u32> {
    if (0..8).contains(&file) && (0..8).contains(&rank) {
        Some((rank * 8 + file) as u32)
    } else {
        None
    }
}

/// Slider attacks from `sq` given the occupied squares, walking ray by ray.
pub fn slow_slider(sq: u32, occupied: u64, dirs: &[(i32, i32); 4]) -> u64 {
    let mut result = 0u64;
    let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
    for &(df, dr) in dirs {
        let (mut cf, mut cr) = (f + df, r + dr);
        while let Some(s) = square_at(cf, cr) {
            result |= 1 << s;
            if occupied & (1 << s) != 0 {
                break;
            }
            cf += df;
            cr += dr;
        }
    }
    result
}

/// Relevant occupancy mask: the rays without their last square on the board edge.
pub fn relevant_mask(sq: u32, dirs: &[(i32, i32); 4]) -> u64 {
    let mut result = 0u64;
    let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
    for &(df, dr) in dirs {
        let (mut cf, mut cr) = (f + df, r + dr);
        while square_at(cf + df, cr + dr).is_some() {
            result |= 1 << (cr * 8 + cf);
            cf += df;
            cr += dr;
        }
    }
    result
}

/// All subsets of `mask` (Carry-Rippler enumeration), the empty set first.
pub fn subsets(mask: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(1 << mask.count_ones());
    let mut subset = 0u64;
    loop {
        out.push(subset);
        subset = subset.wrapping_sub(mask) & mask;
        if subset == 0 {
            return out;
        }
    }
}

/// Finds, for each square, a multiplier that maps every relevant occupancy to a table slot
/// without destructive collisions (fancy magic bitboards). Deterministic: fixed seed.
#[allow(dead_code)] // used by the build script only
pub fn find_magics(dirs: &[(i32, i32); 4]) -> [u64; 64] {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut magics = [0u64; 64];
    let mut epoch = vec![0u32; 4096];
    let mut used = vec![0u64; 4096];
    let mut attempt = 0u32;
    for sq in 0..64u32 {
        let mask = relevant_mask(sq, dirs);
        let shift = 64 - mask.count_ones();
        let occupancies = subsets(mask);
        let attacks: Vec<u64> = occupancies
            .iter()
            .map(|&o| slow_slider(sq, o, dirs))
            .collect();
        magics[sq as usize] = loop {
            let candidate = next() & next() & next();
            if (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 {
                continue;
            }
            attempt += 1;
            let ok = occupancies.iter().zip(&attacks).all(|(&occ, &att)| {
                let idx = (occ.wrapping_mul(candidate) >> shift) as usize;
                if epoch[idx] != attempt {
                    epoch[idx] = attempt;
                    used[idx] = att;
                    true
                } else {
                    used[idx] == att
                }
            });
            if ok {
                break candidate;
            }
        };
    }
    magics
}
