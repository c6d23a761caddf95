#if canImport(UIKit)
import UIKit

/// The kit's error view: a message and a Retry button, centred. Replace it with
/// `GcCommentsViewController.makeErrorView`.
public final class GcErrorView: UIView {
    public static let message = "Comments could not be loaded."
    public static let retryTitle = "Retry"

    private let retry: () -> Void

    public init(error: GcLoadError, retry: @escaping () -> Void) {
        self.retry = retry
        super.init(frame: .zero)
        backgroundColor = .systemBackground
        let label = UILabel()
        label.text = Self.message
        label.numberOfLines = 0
        label.textAlignment = .center
        let button = UIButton(type: .system)
        button.setTitle(Self.retryTitle, for: .normal)
        button.addTarget(self, action: #selector(retryTapped), for: .touchUpInside)
        let stack = UIStackView(arrangedSubviews: [label, button])
        stack.axis = .vertical
        stack.spacing = 12
        stack.alignment = .center
        stack.translatesAutoresizingMaskIntoConstraints = false
        addSubview(stack)
        NSLayoutConstraint.activate([
            stack.centerXAnchor.constraint(equalTo: centerXAnchor),
            stack.centerYAnchor.constraint(equalTo: centerYAnchor),
            stack.leadingAnchor.constraint(greaterThanOrEqualTo: layoutMarginsGuide.leadingAnchor),
            stack.trailingAnchor.constraint(lessThanOrEqualTo: layoutMarginsGuide.trailingAnchor),
        ])
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) {
        fatalError("init(coder:) is not supported")
    }

    @objc private func retryTapped() {
        retry()
    }
}
#endif
