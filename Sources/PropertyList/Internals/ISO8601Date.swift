/// The date text XML plists use: `2024-05-01T12:30:00Z`, always UTC.
///
/// Written with whole seconds, as Apple's writer does (its readers, and `plistlib`,
/// reject a fraction), and the year as Core Foundation prints it (`%04d`): at least four
/// characters, a minus sign counted among them (`-005`, `12345`). Read leniently:
/// a year of one to ten digits, with or without a minus, as Core Foundation reads any
/// run of digits; trailing parts may be left off (`2024-05` is the first of May), a
/// fraction of a second is kept, and the `Z` is required.
package enum ISO8601Date {
    /// Seconds from 1970 to 2001, the reference date of plist times.
    static let referenceDateOffset: Double = 978_307_200
    /// Seconds since 2001 from the first second of year 0 to the end of year 9999: the
    /// dates whose text has a four-digit year.
    package static let fourDigitYears: Range<Double> = -63_145_526_400..<252_423_993_600

    /// Formats seconds since 2001, rounding down to the whole second.
    /// - Throws: `.unsupportedValue` for NaN, infinities and dates so far out (about
    ///   3 billion years) that the calendar arithmetic would overflow.
    package static func format(_ secondsSinceReferenceDate: Double, into output: inout [UInt8])
        throws(PropertyListError)
    {
        guard secondsSinceReferenceDate.isFinite, secondsSinceReferenceDate.magnitude < 1e17 else {
            throw PropertyListError(.unsupportedValue, "the date \(secondsSinceReferenceDate) has no calendar form")
        }
        let unix = Int64((secondsSinceReferenceDate + referenceDateOffset).rounded(.down))
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        // At most 30 bytes (a year of 11 digits with its sign): built on the stack and
        // appended once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var position = 0
            func put(_ byte: UInt8) {
                buffer[position] = byte
                position += 1
            }
            func put(_ value: Int64, width: Int) {
                if value < 0 { put(UInt8(ascii: "-")) }
                let magnitude = value.magnitude
                var scale: UInt64 = 1
                var digits = 1
                while magnitude / scale >= 10 {
                    scale *= 10
                    digits += 1
                }
                for _ in digits..<max(width, digits) { put(UInt8(ascii: "0")) }
                var remaining = magnitude
                while scale > 0 {
                    put(UInt8(truncatingIfNeeded: remaining / scale) &+ UInt8(ascii: "0"))
                    remaining %= scale
                    scale /= 10
                }
            }
            put(year, width: year < 0 ? 3 : 4)
            put(UInt8(ascii: "-"))
            put(month, width: 2)
            put(UInt8(ascii: "-"))
            put(day, width: 2)
            put(UInt8(ascii: "T"))
            put(secondOfDay / 3600, width: 2)
            put(UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, width: 2)
            put(UInt8(ascii: ":"))
            put(secondOfDay % 60, width: 2)
            put(UInt8(ascii: "Z"))
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<position]))
        }
    }

    /// Parses the text between `<date>` and `</date>`; `nil` when malformed or when a
    /// field is out of range.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var position = 0
        func number(digits: Int) -> Int64? {
            guard position + digits <= text.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<digits {
                let digit = text[position] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
                position += 1
            }
            return value
        }
        func accept(_ character: Character) -> Bool {
            guard position < text.count, text[position] == character.asciiValue! else { return false }
            position += 1
            return true
        }
        var negativeYear = false
        if accept("-") { negativeYear = true }
        // Ten digits hold every year the writer writes (dates within 10^17 seconds).
        var yearDigits = 0
        while position + yearDigits < text.count, yearDigits < 11, text[position + yearDigits] &- UInt8(ascii: "0") < 10
        {
            yearDigits += 1
        }
        guard (1...10).contains(yearDigits), var year = number(digits: yearDigits) else { return nil }
        if negativeYear { year = -year }
        var month: Int64 = 1
        var day: Int64 = 1
        var hour: Int64 = 0
        var minute: Int64 = 0
        var second: Int64 = 0
        var fraction = 0.0
        if accept("-") {
            guard let value = number(digits: 2) else { return nil }
            month = value
            if accept("-") {
                guard let value = number(digits: 2) else { return nil }
                day = value
                if accept("T") {
                    guard let h = number(digits: 2), accept(":"), let m = number(digits: 2) else { return nil }
                    hour = h
                    minute = m
                    if accept(":") {
                        guard let s = number(digits: 2) else { return nil }
                        second = s
                        if accept(".") {
                            var scale = 0.1
                            let start = position
                            while position < text.count, text[position] &- UInt8(ascii: "0") < 10 {
                                fraction += Double(text[position] - UInt8(ascii: "0")) * scale
                                scale /= 10
                                position += 1
                            }
                            guard position > start else { return nil }
                        }
                    }
                }
            }
        }
        guard accept("Z"), position == text.count else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let unix = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        return unix - referenceDateOffset
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Proleptic Gregorian conversions (H. Hinnant's days-from-civil algorithm).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
