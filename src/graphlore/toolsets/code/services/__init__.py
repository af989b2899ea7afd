"""What part 2 shares across frameworks: endpoints before linking, settings, links, the service map."""
