//! The compiled walk: the chained walk's tree, as machine code written for
//! one plan at run time (x86-64).
//!
//! The chained walk (`chain`) gives every level its own code, but that code
//! is compiled once for every puzzle, so each level still reads what it
//! knows about its cell (the cell, its neighbours, their shifts and
//! factors, its table) from the plan at every descent, and every fourth
//! level pays a call, a return and the saving of six registers. The engines
//! that lead on raw node rate generate a program per puzzle instead, with
//! all of that written into the code as constants. This module does the
//! same inside e2, without a compiler at run time: it writes the x86-64
//! instructions of the walk directly (through `dynasmrt`), one block per
//! level, with the level's cell, neighbours, shifts, factors and table
//! start as immediates, the board, stock, run stack, candidates and the
//! countdown to the driver's next mark held in registers for the whole
//! walk, and levels joined by jumps: placing falls through into the next
//! level's block, an exhausted run jumps straight back to its parent's.
//! Nothing is called and nothing is saved on descent but the level's
//! cursor.
//!
//! What the code does per node is the chained walk's, line for line: read
//! the run's next candidate, stop at the sentinel, skip a class that is out
//! of stock, take one, write the word, count the node down to the mark,
//! store the cursor, key the next level by the word just placed. The tree, the
//! order, the nodes at which the driver is polled and the runs it reads are
//! the same, so checkpoints, splits and resumes are exact; the tests hold
//! it to the chained and plain walks on counts, per-depth nodes, budget
//! stops, checkpoints, resumes and splits.
//!
//! It serves counts (the `Count` visitor, whose leaf only adds one); the
//! other visitors and other architectures take the chained walk. The code
//! for a plan and a leaf depth is written once and kept with the plan.
//! The driver is polled outside the code: at the mark the code stores the
//! level's run and returns the level; the walk polls as the chained walk
//! does and re-enters the code at that level's placement.

use std::sync::{Arc, Mutex};

use super::candidate::COLOUR_MASK;
use super::plan::{Level, Plan, Term};
use super::poll::Polls;
use super::state::{Counters, SearchState};
use super::strided::{Positions, OPEN_END};
use super::walk::Entry;
use crate::search::RunEnd;

/// A plan's compiled walks, one per leaf depth, written when first asked for.
pub(crate) struct Compiled {
    /// Whether counts take the compiled walk (a test clears it to compare).
    pub enabled: bool,
    walks: Mutex<Vec<(usize, Arc<code::Walk>)>>,
}

impl Compiled {
    pub(crate) fn new() -> Self {
        Compiled {
            enabled: code::AVAILABLE,
            walks: Mutex::new(Vec::new()),
        }
    }

    /// The compiled walk down to `leaf` levels, or `None` when this plan or
    /// this machine has none (another architecture, or a system that
    /// refuses executable memory): then the count takes the chained walk.
    fn walk(&self, plan: &Plan, leaf: usize) -> Option<Arc<code::Walk>> {
        if !self.enabled {
            return None;
        }
        let mut walks = self.walks.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, walk)) = walks.iter().find(|(l, _)| *l == leaf) {
            return Some(walk.clone());
        }
        let walk = Arc::new(code::Walk::new(plan, leaf)?);
        walks.push((leaf, walk.clone()));
        Some(walk)
    }
}

impl Clone for Compiled {
    /// A clone writes its own code when it needs it.
    fn clone(&self) -> Self {
        Compiled {
            enabled: self.enabled,
            walks: Mutex::new(Vec::new()),
        }
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

/// Counts the subtree from `entry` down to `leaf` levels with the compiled
/// walk, as `chain::walk` does with a visitor whose leaf only adds one
/// (`Visitor::COUNTS_ONLY`), which calls this first; `None` when the plan
/// has no compiled walk (then nothing was touched).
pub(crate) fn count(
    plan: &Plan,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut dyn Polls,
) -> Option<(RunEnd, Option<usize>)> {
    let strided = plan.strided.as_ref()?;
    let walk = plan.compiled.walk(plan, leaf)?;
    assert!(state.runs.len() >= leaf && state.board.len() == plan.pinned_board.len());
    assert!(state.stock.len() == plan.stock.len());
    let (levels, offsets) = (&plan.levels, plan.tables.offsets());
    let mut mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
    let mut at = match entry {
        Entry::Fresh => None,
        Entry::Placed(top) => {
            strided.rewrite_runs(levels, offsets, state, top, Positions::Strided);
            Some(top)
        }
    };
    let mut countdown = mark - counters.nodes;
    // Once per walk: the code keeps each level's `end` in the run stack
    // only, open unless a split cut it, so the levels below the entry start
    // open; and it keeps the levels' cold parts in `slots`, which it
    // rewrites as cells are placed. A poll changes neither (it reads and
    // cuts only the runs of the placed levels), so re-entering after one
    // needs neither again.
    let below = at.map_or(0, |top| top + 1);
    for run in &mut state.runs[below..leaf] {
        run.end = OPEN_END;
    }
    let mut slots: Vec<u32> = strided.levels[..leaf]
        .iter()
        .map(|level| cold_part(level, &state.board))
        .collect();
    loop {
        let word = match at {
            None => state.board[plan.levels[0].hot_cell as usize],
            Some(_) => 0,
        };
        let s = state.stacks();
        let mut regs = Regs {
            board: s.board,
            stock: s.stock,
            runs: s.runs.cast(),
            candidates: strided.candidates.as_ptr(),
            countdown,
            solutions: counters.solutions,
            word,
            slots: slots.as_mut_ptr(),
        };
        // SAFETY: the code was written for this plan's strided levels and
        // this leaf; the pointers are this plan's candidates and a state
        // of this plan (asserted above), whose bounds the plan guarantees
        // as for the chained walk (see `code`).
        let stopped = unsafe { walk.run(&mut regs, at) };
        counters.solutions = regs.solutions;
        countdown = regs.countdown;
        let Some(d) = stopped else {
            counters.nodes = mark - countdown;
            return Some((RunEnd::Finished, None));
        };
        // The mark, with level `d` just placed and its cursor stored: the
        // driver's poll, as the chained walk makes it, on flat runs.
        debug_assert_eq!(countdown, 0);
        counters.nodes = mark;
        strided.rewrite_runs(levels, offsets, state, d, Positions::Flat);
        let stop = driver.poll(plan, state, d, counters);
        if let Some(stop) = stop {
            return Some((stop, Some(d)));
        }
        strided.rewrite_runs(levels, offsets, state, d, Positions::Strided);
        mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
        countdown = mark - counters.nodes;
        at = Some(d);
    }
}

/// What the code reads on entry and writes back on exit.
#[repr(C)]
struct Regs {
    board: *mut u32,
    stock: *mut u16,
    runs: *mut u32,
    candidates: *const u32,
    countdown: u64,
    solutions: u64,
    /// The word the first level is keyed by, on a fresh entry.
    word: u32,
    /// Per level, its key's cold part (see [`cold_part`]).
    slots: *mut u32,
}

/// A level's key without its hot term: the table's start plus its cold
/// terms, read from `board`; what the code keeps per level in its slots.
fn cold_part(level: &Level, board: &[u32]) -> u32 {
    level.terms[..level.cold as usize]
        .iter()
        .fold(level.table, |key, t| {
            key.wrapping_add(term(t, board[t.cell as usize]))
        })
}

/// One key term's value for the word on its cell.
fn term(t: &Term, word: u32) -> u32 {
    ((word >> t.shift) & COLOUR_MASK).wrapping_mul(t.factor)
}

#[cfg(target_arch = "x86_64")]
mod code {
    //! The code writer. Registers for the whole walk:
    //!
    //! | register | holds |
    //! |---|---|
    //! | `rbx` | the board (`u32` words) |
    //! | `rbp` | the stock (`u16` per class) |
    //! | `r12` | the run stack (`next`, `end`: two `u32` per level) |
    //! | `r13` | the strided candidates (`u32`) |
    //! | `r9` | the cold parts of the levels' keys (`u32` per level) |
    //! | `r14` | the countdown to the driver's next mark |
    //! | `r15` | the [`Regs`] block the walk was entered with |
    //! | `edx` | the word just placed (the next level's hot term) |
    //! | `esi`, `edi` | the cursors of the even and the odd levels |
    //! | `eax`, `ecx` | scratch |
    //!
    //! Per level `d`, at cell `pos`, with `c` its cursor register, in code
    //! order:
    //!
    //! ```text
    //! enter_d:  c = cold[d] + ((edx >> hot_shift) & hot_mask)
    //! scan_d:   edx = candidates[c]; if edx == SENTINEL goto spent_d
    //!           c += 1; if stock[class(edx)] == 0 goto scan_d
    //!           stock[class(edx)] -= 1; board[pos] = edx
    //!           if --r14 == 0 goto poll_d
    //! placed_d: for each level e whose key this cell completes:
    //!               cold[e] = table_e + Σ ((word on cell_t >> shift_t) & 31) · factor_t
    //!           runs[d].next = c                     (then into enter_{d+1})
    //! ```
    //!
    //! `cold[d]` is an immediate when every cold term of level `d` is on a
    //! pinned cell. Out of line, per level: `after_d` (the child's run is
    //! spent: give this level's piece back, scan on unless a split cut the
    //! run), `spent_d` (load the grandparent's cursor into `c`, which the
    //! parent does not use, then go to `after_{d-1}`), `poll_d` (store the
    //! cursor, return `d + 1`) and `resume_d` (load this level's and the
    //! parent's cursors and the word, go to `placed_d`). So a level returns
    //! to a parent whose cursor is still in its register: the cursor is
    //! not reloaded on the path from a spent run to the parent's next
    //! candidate, which is the path a mispredicted run end waits on. A
    //! run's `end` stays in the run stack: open unless a split cut it, read
    //! only when the level's child is spent. The leaf level's `placed` adds
    //! one solution, gives the piece back and scans on. Level 0's spent run
    //! returns 0.
    //!
    //! Bounds: the code makes the accesses the chained walk makes, with the
    //! same proof: board cells and levels are the plan's, a key lands in its
    //! strided table whose every key ends at a sentinel, classes are below
    //! the stock's length, `d < leaf ≤ runs.len()`.

    use dynasmrt::{
        dynasm,
        x64::{Assembler, Rq},
        DynamicLabel, DynasmApi, DynasmLabelApi, ExecutableBuffer,
    };

    use super::super::candidate::CLASS_MASK;
    use super::super::plan::{Level, Plan, Term};
    use super::super::strided::{OPEN_END, SENTINEL};
    use super::Regs;

    pub(super) const AVAILABLE: bool = true;

    // Field offsets the code uses.
    const BOARD: i32 = 0;
    const STOCK: i32 = 8;
    const RUNS: i32 = 16;
    const CANDIDATES: i32 = 24;
    const COUNTDOWN: i32 = 32;
    const SOLUTIONS: i32 = 40;
    const WORD: i32 = 48;
    const SLOTS: i32 = 56;
    const _: () = {
        assert!(std::mem::offset_of!(Regs, board) == BOARD as usize);
        assert!(std::mem::offset_of!(Regs, stock) == STOCK as usize);
        assert!(std::mem::offset_of!(Regs, runs) == RUNS as usize);
        assert!(std::mem::offset_of!(Regs, candidates) == CANDIDATES as usize);
        assert!(std::mem::offset_of!(Regs, countdown) == COUNTDOWN as usize);
        assert!(std::mem::offset_of!(Regs, solutions) == SOLUTIONS as usize);
        assert!(std::mem::offset_of!(Regs, word) == WORD as usize);
        assert!(std::mem::offset_of!(Regs, slots) == SLOTS as usize);
    };

    /// The code of one plan's walk down to one leaf depth.
    pub(crate) struct Walk {
        code: ExecutableBuffer,
        /// The walk's one function: `fn(regs, entry) -> level + 1 | 0`.
        start: usize,
        /// Where a fresh walk enters: level 0's block.
        fresh: usize,
        /// Per level, where a walk resumes with that level placed.
        resume: Vec<usize>,
    }

    impl Walk {
        /// Writes the walk, or `None` when a constant does not fit its
        /// instruction (never for boards up to 16×16).
        pub(super) fn new(plan: &Plan, leaf: usize) -> Option<Walk> {
            let strided = plan.strided.as_ref()?;
            let levels = &strided.levels;
            if leaf == 0 || leaf > levels.len() {
                return None;
            }
            let fits = |v: u64| i32::try_from(v).is_ok();
            for (d, l) in levels[..leaf].iter().enumerate() {
                let ok = fits(u64::from(l.pos) * 4)
                    && fits(u64::from(l.table))
                    && l.hot_shift < 32
                    && fits(d as u64 * 8 + 4)
                    && l.cold as usize <= l.terms.len()
                    && l.terms[..l.cold as usize].iter().all(|t| {
                        fits(u64::from(t.cell) * 4) && fits(u64::from(t.factor)) && t.shift < 32
                    });
                if !ok {
                    return None;
                }
            }
            let cold = cold_parts(plan, levels, leaf);
            let mut ops = Assembler::new().ok()?;
            let label = |ops: &mut Assembler| -> Vec<DynamicLabel> {
                (0..leaf).map(|_| ops.new_dynamic_label()).collect()
            };
            let enter = label(&mut ops);
            let scan = label(&mut ops);
            let placed = label(&mut ops);
            let after = label(&mut ops);
            let spent = label(&mut ops);
            let cut = label(&mut ops);
            let poll = label(&mut ops);
            let finished = ops.new_dynamic_label();
            let exit = ops.new_dynamic_label();
            let sentinel = SENTINEL as i32;
            let open_end = OPEN_END as i32;
            let class_mask = CLASS_MASK as i32;
            // Level d's cursor: esi on even levels, edi on odd.
            let cursor = |d: usize| {
                if d.is_multiple_of(2) {
                    Rq::RSI
                } else {
                    Rq::RDI
                }
            };

            // The function: save the callee-saved registers, load the
            // walk's registers, jump to the entry (the second argument).
            let start = ops.offset().0;
            dynasm!(ops
                ; .arch x64
                ; push rbx
                ; push rbp
                ; push r12
                ; push r13
                ; push r14
                ; push r15
                ; sub rsp, 8
                ; mov r15, rdi
                ; mov rbx, QWORD [r15 + BOARD]
                ; mov rbp, QWORD [r15 + STOCK]
                ; mov r12, QWORD [r15 + RUNS]
                ; mov r13, QWORD [r15 + CANDIDATES]
                ; mov r14, QWORD [r15 + COUNTDOWN]
                ; mov r9, QWORD [r15 + SLOTS]
                ; mov edx, DWORD [r15 + WORD]
                ; jmp rsi
            );

            let fresh = ops.offset().0;
            for d in 0..leaf {
                let l = &levels[d];
                let pos = l.pos as i32 * 4;
                let run = d as i32 * 8;
                let c = cursor(d);
                // The key: its cold part (a constant, or the slot the
                // last of its cells wrote when it was placed), then the
                // hot term.
                dynasm!(ops ; .arch x64 ; =>enter[d]);
                match cold[d].last {
                    None => dynasm!(ops ; .arch x64 ; mov ecx, cold[d].constant as i32),
                    Some(_) => dynasm!(ops ; .arch x64 ; mov ecx, DWORD [r9 + d as i32 * 4]),
                }
                dynasm!(ops ; .arch x64 ; mov eax, edx);
                if l.hot_shift > 0 {
                    dynasm!(ops ; .arch x64 ; shr eax, l.hot_shift as i8);
                }
                dynasm!(ops
                    ; .arch x64
                    ; and eax, l.hot_mask as i32
                    ; lea Rd(c), [rax + rcx]
                    ; =>scan[d]
                    ; mov edx, DWORD [r13 + Rq(c) * 4]
                    ; cmp edx, sentinel
                    ; je =>spent[d]
                    ; add Rd(c), 1
                    ; mov eax, edx
                    ; and eax, class_mask
                    ; cmp WORD [rbp + rax * 2], 0
                    ; je =>scan[d]
                    ; sub WORD [rbp + rax * 2], 1
                    ; mov DWORD [rbx + pos], edx
                    ; sub r14, 1
                    ; je =>poll[d]
                    ; =>placed[d]
                );
                // The cold parts this placement completes.
                for (e, part) in cold.iter().enumerate().filter(|(_, p)| p.last == Some(d)) {
                    dynasm!(ops ; .arch x64 ; mov ecx, part.constant as i32);
                    for t in &part.terms {
                        if t.cell == l.pos as u16 {
                            dynasm!(ops ; .arch x64 ; mov eax, edx);
                        } else {
                            dynasm!(ops ; .arch x64 ; mov eax, DWORD [rbx + t.cell as i32 * 4]);
                        }
                        if t.shift > 0 {
                            dynasm!(ops ; .arch x64 ; shr eax, t.shift as i8);
                        }
                        dynasm!(ops
                            ; .arch x64
                            ; and eax, COLOUR_MASK
                            ; imul eax, eax, t.factor as i32
                            ; add ecx, eax
                        );
                    }
                    dynasm!(ops ; .arch x64 ; mov DWORD [r9 + e as i32 * 4], ecx);
                }
                if d + 1 == leaf {
                    // A leaf: one more solution; the piece goes back.
                    dynasm!(ops
                        ; .arch x64
                        ; add QWORD [r15 + SOLUTIONS], 1
                        ; mov eax, edx
                        ; and eax, class_mask
                        ; add WORD [rbp + rax * 2], 1
                        ; cmp DWORD [r12 + run + 4], Rd(c)
                        ; jbe =>cut[d]
                        ; jmp =>scan[d]
                    );
                } else {
                    // Into the next level's block, just below.
                    dynasm!(ops
                        ; .arch x64
                        ; mov DWORD [r12 + run], Rd(c)
                    );
                }
            }

            // Out of line, per level: the child's run is spent; this
            // level's run is spent; the mark; a resumed walk.
            let mut resume = Vec::with_capacity(leaf);
            for d in 0..leaf {
                let l = &levels[d];
                let pos = l.pos as i32 * 4;
                let run = d as i32 * 8;
                let c = cursor(d);
                let back = if d == 0 { finished } else { after[d - 1] };
                dynasm!(ops
                    ; .arch x64
                    ; =>after[d]
                    ; mov eax, DWORD [rbx + pos]
                    ; and eax, class_mask
                    ; add WORD [rbp + rax * 2], 1
                    // A run is open (it ends at its sentinel) or cut where
                    // its next candidate starts.
                    ; cmp DWORD [r12 + run + 4], Rd(c)
                    ; jbe =>cut[d]
                    ; jmp =>scan[d]
                    // A cut run is spent, and its level's next run is open.
                    ; =>cut[d]
                    ; mov DWORD [r12 + run + 4], open_end
                    ; =>spent[d]
                );
                // This level's register is the grandparent's cursor again
                // (the parent's register is intact: its other children
                // that reached this depth restored it when they ended).
                if d >= 2 {
                    dynasm!(ops
                        ; .arch x64
                        ; mov Rd(c), DWORD [r12 + run - 16]
                    );
                }
                dynasm!(ops
                    ; .arch x64
                    ; jmp =>back
                    ; =>poll[d]
                    ; mov DWORD [r12 + run], Rd(c)
                    ; mov eax, d as i32 + 1
                    ; jmp =>exit
                );
                resume.push(ops.offset().0);
                if d >= 1 {
                    let p = cursor(d - 1);
                    dynasm!(ops
                        ; .arch x64
                        ; mov Rd(p), DWORD [r12 + run - 8]
                    );
                }
                dynasm!(ops
                    ; .arch x64
                    ; mov Rd(c), DWORD [r12 + run]
                    ; mov edx, DWORD [rbx + pos]
                    ; jmp =>placed[d]
                );
            }
            dynasm!(ops
                ; .arch x64
                ; =>finished
                ; xor eax, eax
                ; =>exit
                ; mov QWORD [r15 + COUNTDOWN], r14
                ; add rsp, 8
                ; pop r15
                ; pop r14
                ; pop r13
                ; pop r12
                ; pop rbp
                ; pop rbx
                ; ret
            );
            let code = ops.finalize().ok()?;
            Some(Walk {
                fresh,
                code,
                start,
                resume,
            })
        }

        /// Runs the walk from level 0 (`at` = `None`) or with levels
        /// `0..=top` placed and their runs stored (`Some(top)`). Returns
        /// `None` when the walk finished, `Some(d)` when the countdown
        /// reached 0 with level `d` just placed and its run stored.
        ///
        /// # Safety
        /// `regs` points at a state and strided candidates of the plan the
        /// walk was written for, the countdown is at least 1, and with
        /// `Some(top)` levels `0..=top` are placed with strided runs.
        pub(super) unsafe fn run(&self, regs: &mut Regs, at: Option<usize>) -> Option<usize> {
            let entry = match at {
                None => self.fresh,
                Some(top) => self.resume[top],
            };
            // SAFETY: `start` is the function written in `new`, whose
            // calling convention is System V: the two arguments in rdi, rsi.
            let f: unsafe extern "sysv64" fn(*mut Regs, *const u8) -> u64 =
                unsafe { std::mem::transmute(self.code.ptr(dynasmrt::AssemblyOffset(self.start))) };
            let entry = self.code.ptr(dynasmrt::AssemblyOffset(entry));
            // SAFETY: see the function's contract.
            let r = unsafe { f(regs, entry) };
            r.checked_sub(1).map(|d| d as usize)
        }
    }

    const COLOUR_MASK: i32 = super::super::candidate::COLOUR_MASK as i32;

    /// How the code finds each level's cold part: the terms on pinned
    /// cells are constants; the rest is computed when the last of the
    /// level's cells to be placed is placed (a cell of a level above
    /// changes only after that one is placed again), not at every entry
    /// into the level.
    struct ColdPart {
        constant: u32,
        terms: Vec<Term>,
        /// The level whose placement completes the part; `None` when the
        /// part is `constant`.
        last: Option<usize>,
    }

    /// Each level's cold part, as [`ColdPart`] says the code finds it.
    fn cold_parts(plan: &Plan, levels: &[Level], leaf: usize) -> Vec<ColdPart> {
        let mut level_of = vec![None; plan.pinned_board.len()];
        for (d, l) in levels.iter().enumerate() {
            level_of[l.pos as usize] = Some(d);
        }
        levels[..leaf]
            .iter()
            .enumerate()
            .map(|(d, l)| {
                let mut part = ColdPart {
                    constant: l.table,
                    terms: Vec::new(),
                    last: None,
                };
                for t in &l.terms[..l.cold as usize] {
                    match level_of[t.cell as usize] {
                        Some(j) => {
                            assert!(j < d, "a key term reads a cell placed before");
                            part.terms.push(*t);
                            part.last = part.last.max(Some(j));
                        }
                        None => {
                            let word = plan.pinned_board[t.cell as usize];
                            part.constant = part.constant.wrapping_add(super::term(t, word));
                        }
                    }
                }
                part
            })
            .collect()
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod code {
    //! No code writer for this architecture: counts take the chained walk.
    use super::super::plan::Plan;
    use super::Regs;

    pub(super) const AVAILABLE: bool = false;

    pub(crate) struct Walk;

    impl Walk {
        pub(super) fn new(_: &Plan, _: usize) -> Option<Walk> {
            None
        }

        pub(super) unsafe fn run(&self, _: &mut Regs, _: Option<usize>) -> Option<usize> {
            unreachable!("no walk is written on this architecture")
        }
    }
}

#[cfg(test)]
mod tests {
    //! The compiled walk against the chained walk it copies and the plain
    //! walk, on plans with pinned cells (whose key terms the code folds
    //! into constants) and on the official size: the same counts, nodes,
    //! budget stops, checkpoints, resumes and per-depth nodes. The walks'
    //! shared tests (`walk`) add polls and splits on unpinned plans.
    use super::super::Backtracker;
    use crate::generator::{generate, GenSpec};
    use crate::layouts::Layout;
    use crate::model::Puzzle;
    use crate::order::FillOrder;
    use crate::search::{Limits, Prefix};

    /// Compiled (where this machine has it), chained, plain: for the count
    /// walks without masks.
    fn three(puzzle: &Puzzle, order: FillOrder) -> [Backtracker; 3] {
        let mut compiled = Backtracker::new(puzzle, order, &Prefix::new()).unwrap();
        compiled.plan.masks = None;
        compiled.plan.open = None;
        assert!(compiled.plan.chained && compiled.plan.strided.is_some());
        let mut chained = compiled.clone();
        chained.plan.compiled.enabled = false;
        let mut plain = chained.clone();
        plain.plan.chained = false;
        [compiled, chained, plain]
    }

    /// The three walks agree on `puzzle` within `budget` nodes: whole or
    /// stopped counts, their checkpoints, resumes, and nodes per depth up
    /// to `depth`.
    fn agree(puzzle: &Puzzle, order: FillOrder, budget: u64, depth: usize, at: &str) {
        let mut walks = three(puzzle, order);
        let whole = walks[2].count(&Limits::nodes(budget));
        for walk in &mut walks[..2] {
            assert_eq!(walk.count(&Limits::nodes(budget)), whole, "{at}");
        }
        for part in [1, 5, whole.nodes / 3 + 1, whole.nodes / 2] {
            if part == 0 || part >= whole.nodes {
                continue;
            }
            let stopped = walks[2].count(&Limits::nodes(part));
            let cp = stopped.checkpoint.clone().expect("stopped early");
            let rest = walks[2]
                .resume(&cp, &Limits::nodes(budget), |_| {})
                .unwrap();
            if whole.checkpoint.is_none() {
                assert_eq!((rest.solutions, rest.nodes), (whole.solutions, whole.nodes));
            }
            for walk in &mut walks[..2] {
                assert_eq!(walk.count(&Limits::nodes(part)), stopped, "{at} at {part}");
                let again = walk.resume(&cp, &Limits::nodes(budget), |_| {}).unwrap();
                assert_eq!(again, rest, "{at} resumed at {part}");
            }
        }
        let depths = walks[2].nodes_per_depth(depth);
        for walk in &mut walks[..2] {
            assert_eq!(walk.nodes_per_depth(depth), depths, "{at}");
        }
    }

    #[test]
    fn compiled_walks_agree_on_plans_with_pinned_cells() {
        for (size, layout, colours) in [
            (5, Layout::Official5, 6),
            (6, Layout::Block, 7),
            (6, Layout::Official5, 7),
            (7, Layout::Block, 8),
        ] {
            for seed in 1..=3 {
                let spec = GenSpec {
                    layout,
                    colours: Some(colours),
                    border_colours: Some(2),
                    ..GenSpec::square(size, seed)
                };
                let puzzle = generate(&spec).unwrap().puzzle;
                assert!(!puzzle.hints.is_empty());
                for order in FillOrder::ALL {
                    let at = format!("{size} {layout:?} {seed} {order}");
                    agree(&puzzle, order, 200_000, 6, &at);
                }
            }
        }
    }

    #[test]
    fn compiled_walks_agree_on_the_official_size() {
        // 16×16, 22 colours, the five official clue cells: the strict row
        // scan's shape (256 levels, strided tables, three-sided keys at
        // the clues), cut at a budget.
        for seed in 1..=2 {
            let spec = GenSpec {
                layout: Layout::Official5,
                ..GenSpec::square(16, seed)
            };
            let puzzle = generate(&spec).unwrap().puzzle;
            agree(
                &puzzle,
                FillOrder::RowMajor,
                1_000_000,
                4,
                &format!("16x16 {seed}"),
            );
        }
    }
}
