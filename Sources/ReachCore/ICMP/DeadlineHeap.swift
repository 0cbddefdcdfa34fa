import ReachSystem

/// A binary min-heap of probe deadlines: the earliest wait to end first. Entries of probes
/// answered since are skipped when they come up (their serial no longer matches).
struct DeadlineHeap {
    private var items: [(time: MonotonicInstant, slot: Int, serial: Int)] = []

    var first: (time: MonotonicInstant, slot: Int, serial: Int)? { items.first }

    mutating func push(_ time: MonotonicInstant, slot: Int, serial: Int) {
        items.append((time, slot, serial))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].time < items[parent].time else { break }
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
            if left < items.count, items[left].time < items[smallest].time { smallest = left }
            if right < items.count, items[right].time < items[smallest].time { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
