public import Foundation

/// Python's `bpylist2` as an independent keyed-archive implementation. Items (the
/// books' `Item`: name, dateCreated, itemKey, serialNumber, valueInDollars, archived
/// under any class name) travel as JSON, dates as seconds since 2001; other values
/// through a tagged JSON like the property-list tests' `plistlib` peer.
public enum Bpylist2Peer {
    /// Whether `python3` with `bpylist2` is installed.
    public static let isAvailable = Python.canImport("bpylist2")

    public static let skipMessage = "skipped: python3 with bpylist2 is not installed (pip install bpylist2)"

    private static let script = #"""
        import base64, dataclasses, json, sys
        from bpylist2 import archiver
        from bpylist2.archive_types import DataclassArchiver, timestamp
        DELTA = timestamp.unix2apple_epoch_delta

        @dataclasses.dataclass
        class Item(DataclassArchiver):
            name: str = ""
            dateCreated: object = None
            itemKey: str = ""
            serialNumber: object = None
            valueInDollars: int = 0

        def tag(v):
            if isinstance(v, bool): return ["b", v]
            if isinstance(v, timestamp): return ["t", v - DELTA]
            if isinstance(v, int): return ["i", v]
            if isinstance(v, float): return ["r", v]
            if isinstance(v, str): return ["s", v]
            if isinstance(v, (bytes, bytearray)): return ["d", base64.b64encode(bytes(v)).decode()]
            if isinstance(v, list): return ["a", [tag(x) for x in v]]
            if isinstance(v, set): return ["S", sorted((tag(x) for x in v), key=json.dumps)]
            if isinstance(v, dict): return ["D", {k: tag(x) for k, x in v.items()}]
            if v is None: return ["n"]
            raise TypeError(type(v).__name__)

        def untag(t):
            kind = t[0]
            if kind in "bisr": return t[1]
            if kind == "t": return timestamp(t[1] + DELTA)
            if kind == "d": return base64.b64decode(t[1])
            if kind == "a": return [untag(x) for x in t[1]]
            if kind == "S": return {untag(x) for x in t[1]}
            if kind == "D": return {k: untag(x) for k, x in t[1].items()}
            if kind == "n": return None
            raise TypeError(kind)

        mode, class_name = sys.argv[1], sys.argv[2]
        archiver.update_class_map({class_name: Item})
        data = sys.stdin.buffer.read()
        if mode == "read-items":
            items = archiver.unarchive(data)
            json.dump([{"name": i.name, "dateCreated": i.dateCreated - DELTA, "itemKey": i.itemKey,
                        "serialNumber": i.serialNumber, "valueInDollars": i.valueInDollars} for i in items], sys.stdout)
        elif mode == "write-items":
            items = [Item(name=i["name"], dateCreated=timestamp(i["dateCreated"] + DELTA), itemKey=i["itemKey"],
                          serialNumber=i.get("serialNumber"), valueInDollars=i["valueInDollars"]) for i in json.loads(data)]
            sys.stdout.buffer.write(archiver.archive(items))
        elif mode == "read-value":
            json.dump(tag(archiver.unarchive(data)), sys.stdout)
        elif mode == "write-value":
            sys.stdout.buffer.write(archiver.archive(untag(json.loads(data))))
        """#

    /// Runs the peer in `mode` with `input` on stdin; returns stdout.
    public static func run(_ mode: String, className: String = "PyItem", input: Data) throws -> Data {
        try Python.run(script, [mode, className], input: input)
    }
}
