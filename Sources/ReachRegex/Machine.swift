/// The Pike VM (Go's regexp exec.go, `machine`): every thread advances one rune at a time,
/// in priority order, each instruction visited at most once per position, so a match costs
/// at most the text's length times the program's.
extension Program {
    /// The leftmost-first match's slots (empty when `captures` is false), nil without a match.
    func run(on text: UnsafeBufferPointer<UInt8>, captures: Bool) -> [Int]? {
        var machine = Machine(self, slotCount: captures ? 2 * (captureCount + 1) : 0)
        return machine.run(text)
    }
}

private struct Machine {
    private struct Queue {
        var visited: [Int] = []
        var sparse: [Int]
        var threads: [(pc: Int, slots: [Int])] = []

        init(size: Int) { sparse = Array(repeating: 0, count: size) }

        /// Marks `pc` visited; false when it already was at this position.
        mutating func visit(_ pc: Int) -> Bool {
            let slot = sparse[pc]
            if slot < visited.count && visited[slot] == pc { return false }
            sparse[pc] = visited.count
            visited.append(pc)
            return true
        }

        mutating func clear() {
            visited.removeAll(keepingCapacity: true)
            threads.removeAll(keepingCapacity: true)
        }
    }

    private enum Work {
        case explore(Int)
        case restore(slot: Int, value: Int)
    }

    let instructions: [Instruction]
    let slotCount: Int
    private var current: Queue
    private var next: Queue
    private var stack: [Work] = []
    private var matched: [Int]?

    init(_ program: Program, slotCount: Int) {
        instructions = program.instructions
        self.slotCount = slotCount
        current = Queue(size: instructions.count)
        next = Queue(size: instructions.count)
    }

    mutating func run(_ text: UnsafeBufferPointer<UInt8>) -> [Int]? {
        var position = 0
        var before: Int32 = -1
        var (rune, width) = UTF8Decoding.rune(in: text, at: 0)
        while true {
            if current.threads.isEmpty && matched != nil { break }
            if matched == nil {
                var slots = Array(repeating: -1, count: slotCount)
                if slotCount > 0 { slots[0] = position }
                if add(toNext: false, 0, &slots, at: position, before: before, after: rune) { return [] }
            }
            let (after, afterWidth) = UTF8Decoding.rune(in: text, at: position + width)
            if step(rune: rune, at: position, width: width, after: after) { return [] }
            current.clear()
            if width == 0 { break }
            position += width
            before = rune
            (rune, width) = (after, afterWidth)
            swap(&current, &next)
        }
        return matched
    }

    /// Advances each thread over `rune`, in priority order; a thread at the match cuts off
    /// those after it (leftmost-first). True when a match needs no slots (stop there).
    private mutating func step(rune: Int32, at position: Int, width: Int, after: Int32) -> Bool {
        for index in current.threads.indices {
            var (pc, slots) = current.threads[index]
            let advances: Bool
            switch instructions[pc] {
            case .match:
                if slotCount == 0 { return true }
                slots[1] = position
                matched = slots
                return false
            case .rune(let expected): advances = rune >= 0 && UInt32(rune) == expected
            case .set(let set): advances = rune >= 0 && set.contains(UInt32(rune))
            default: advances = false
            }
            if advances && add(toNext: true, pc + 1, &slots, at: position + width, before: rune, after: after) { return true }
        }
        return false
    }

    /// Follows `pc` through splits, jumps, saves and assertions that hold, queueing the
    /// threads that wait on a rune or a match; true when a match needs no slots.
    private mutating func add(
        toNext: Bool, _ pc: Int, _ slots: inout [Int], at position: Int, before: Int32, after: Int32
    ) -> Bool {
        stack.append(.explore(pc))
        while let work = stack.popLast() {
            guard case .explore(let pc) = work else {
                if case .restore(let slot, let value) = work { slots[slot] = value }
                continue
            }
            guard toNext ? next.visit(pc) : current.visit(pc) else { continue }
            switch instructions[pc] {
            case .split(let first, let second):
                stack.append(.explore(second))
                stack.append(.explore(first))
            case .jump(let target): stack.append(.explore(target))
            case .save(let slot):
                if slot < slotCount {
                    stack.append(.restore(slot: slot, value: slots[slot]))
                    slots[slot] = position
                }
                stack.append(.explore(pc + 1))
            case .assert(let assertion): if assertion.holds(before: before, after: after) { stack.append(.explore(pc + 1)) }
            case .match:
                if slotCount == 0 {
                    stack.removeAll(keepingCapacity: true)
                    return true
                }
                enqueue(pc, slots, toNext: toNext)
            case .rune, .set: enqueue(pc, slots, toNext: toNext)
            }
        }
        return false
    }

    private mutating func enqueue(_ pc: Int, _ slots: [Int], toNext: Bool) {
        if toNext { next.threads.append((pc, slots)) } else { current.threads.append((pc, slots)) }
    }
}
