import ReachSystem

/// A binary min-heap of probe deadlines: the earliest wait to end first, and of two ending
/// at once the probe sent first. Entries of probes answered since are skipped when they
/// come up (their serial no longer matches, or their probe is no longer waiting).
struct DeadlineHeap {
    private var items: [(time: MonotonicInstant, slot: Int, serial: Int)] = []

    var first: (time: MonotonicInstant, slot: Int, serial: Int)? { items.first }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        items[a].time < items[b].time || (items[a].time == items[b].time && items[a].serial < items[b].serial)
    }

    mutating func push(_ time: MonotonicInstant, slot: Int, serial: Int) {
        items.append((time, slot, serial))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, precedes(left, smallest) { smallest = left }
            if right < items.count, precedes(right, smallest) { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
